/**
 * The search box of the rows page (tables with search columns): words, "phrases", -excluded and
 * or, sent as `search=` on submit; the rows then come most relevant first unless a column is sorted.
 */
import { QueryBar } from './query-bar';

/** `search` is the search in effect; `onApply` gets the new one ('' clears it). */
export function SearchBar({
  search,
  columns,
  onApply,
}: {
  search: string;
  columns: readonly string[];
  onApply: (search: string) => void;
}) {
  return (
    <QueryBar
      applied={search}
      onApply={onApply}
      name="search"
      label="Search"
      placeholder={`Search ${columns.join(', ')}: words, "a phrase", -excluded, or`}
      inputType="search"
      inputClass="grow"
      submitLabel="Search"
      submitTestId="apply-search"
    />
  );
}
