/**
 * How a reference reads, wherever one shows (the rows grid and the row form's picker): the
 * referenced row's label (rowLabel) and the end of its id, or the whole id when the row has no
 * label or is gone. Text only.
 */
import type { Row } from '../api';
import { rowLabel } from './row-values';

/** The label and id end of the row `id` points at; `row` null when it is gone (or not loaded). */
export function ReferenceLabel({ id, row }: { id: string; row: Row | null }) {
  const label = row ? rowLabel(row) : '';
  return (
    <>
      {label && <span class="ref-label">{label} </span>}
      <span class={label ? 'mono muted small' : 'mono small'}>{label ? `…${id.slice(-6)}` : id}</span>
    </>
  );
}

/** The tooltip of a reference: the table and the whole id. */
export function referenceTitle(table: string, id: string, found = true): string {
  return `${table} ${id}${found ? '' : ' (not found)'}`;
}
