/**
 * A one-line query box of the rows page (the filter and the search): its text is applied on
 * submit, trimmed, and Clear (shown while a query is in effect) empties and applies ''.
 */
import { useState } from 'preact/hooks';

export interface QueryBarProps {
  /** The query in effect ('' for none): Clear shows while there is one. */
  readonly applied: string;
  /** Gets the new query ('' clears it). */
  readonly onApply: (query: string) => void;
  /** The input's name and accessible label. */
  readonly name: string;
  readonly label: string;
  readonly placeholder: string;
  /** A search box (`type=search`: a clear button, the search key on phones), else a text box. */
  readonly inputType?: 'search';
  /** The input's classes. */
  readonly inputClass: string;
  /** The submit button's text and test id. */
  readonly submitLabel: string;
  readonly submitTestId: string;
}

export function QueryBar(props: QueryBarProps) {
  const [text, setText] = useState('');
  const apply = (event: Event) => {
    event.preventDefault();
    props.onApply(text.trim());
  };
  return (
    <form class="filter-bar" onSubmit={apply}>
      <input
        type={props.inputType ?? 'text'}
        // Preact's input types ask for `list` by name when `type` is not one literal; there is none.
        list={undefined}
        name={props.name}
        class={props.inputClass}
        aria-label={props.label}
        placeholder={props.placeholder}
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit" data-testid={props.submitTestId}>
        {props.submitLabel}
      </button>
      {props.applied && (
        <button
          type="button"
          class="link"
          onClick={() => {
            setText('');
            props.onApply('');
          }}
        >
          Clear
        </button>
      )}
    </form>
  );
}
