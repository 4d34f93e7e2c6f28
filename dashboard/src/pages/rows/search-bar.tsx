/**
 * The search box of the rows page (tables with search columns): words, "phrases", -excluded and
 * or, sent as `search=` on submit; the rows then come most relevant first unless a column is sorted.
 */
import { useState } from 'preact/hooks';

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
  const [text, setText] = useState('');
  const apply = (event: Event) => {
    event.preventDefault();
    onApply(text.trim());
  };
  return (
    <form class="filter-bar" onSubmit={apply}>
      <input
        type="search"
        name="search"
        class="grow"
        aria-label="Search"
        placeholder={`Search ${columns.join(', ')}: words, "a phrase", -excluded, or`}
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit" data-testid="apply-search">
        Search
      </button>
      {search && (
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
