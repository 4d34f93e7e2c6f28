/** The filter box of the rows page: text in the filter language, applied on submit, with Clear. */
import { QueryBar } from './query-bar';

/** `filter` is the filter in effect; `onApply` gets the new one ('' clears it). */
export function FilterBar({ filter, onApply }: { filter: string; onApply: (filter: string) => void }) {
  return (
    <QueryBar
      applied={filter}
      onApply={onApply}
      name="filter"
      label="Filter"
      placeholder={'e.g. done = false && title ~ "milk"'}
      inputClass="mono grow"
      submitLabel="Filter"
      submitTestId="apply-filter"
    />
  );
}
