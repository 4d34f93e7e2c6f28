/** The filter box of the rows page: text in the filter language, applied on submit, with Clear. */
import { useState } from 'preact/hooks';

/** `filter` is the filter in effect; `onApply` gets the new one ('' clears it). */
export function FilterBar({ filter, onApply }: { filter: string; onApply: (filter: string) => void }) {
  const [text, setText] = useState('');
  const apply = (event: Event) => {
    event.preventDefault();
    onApply(text.trim());
  };
  return (
    <form class="filter-bar" onSubmit={apply}>
      <input
        name="filter"
        class="mono grow"
        aria-label="Filter"
        placeholder={'e.g. done = false && title ~ "milk"'}
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit" data-testid="apply-filter">
        Filter
      </button>
      {filter && (
        <button
          type="button"
          class="link"
          onClick={() => {
            setText('');
            onApply('');
          }}
        >
          Clear
        </button>
      )}
    </form>
  );
}
