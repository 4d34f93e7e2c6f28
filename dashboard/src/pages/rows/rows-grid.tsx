/**
 * The grid of one page of rows: a sortable header (click a column: ascending, descending,
 * none), a box per row and one for the page, and cells that show dates as dates, null as null
 * and reference columns as the label of the row they point at. Clicking a cell opens the row.
 */
import type { Row, Table } from '../../api';
import { DateTime } from '../../components/date-time';
import { ReferenceLabel, referenceTitle } from '../reference-label';
import { cellText } from '../row-values';

/** What the grid shows and what it reports. */
export interface RowsGridProps {
  definition: Table | undefined;
  /** Reference column → the table it points at. */
  referenced: ReadonlyMap<string, string>;
  /** The rows of the page, or undefined while there is none to show. */
  rows: Row[] | undefined;
  loading: boolean;
  live: boolean;
  /** The sort in effect: a column name, `-name` for descending, or empty. */
  sort: string;
  onSort: (column: string) => void;
  selected: ReadonlySet<string>;
  onSelect: (ids: ReadonlySet<string>) => void;
  onToggle: (id: string) => void;
  onOpen: (row: Row) => void;
  /** Why the page is empty, when it is. */
  emptyText: string;
}

/** The rows table of the rows page. */
export function RowsGrid({
  definition,
  referenced,
  rows,
  loading,
  live,
  sort,
  onSort,
  selected,
  onSelect,
  onToggle,
  onOpen,
  emptyText,
}: RowsGridProps) {
  // Shown as dates: the two stamps every row has, and the table's timestamp columns.
  const dates = new Set([
    'created_at',
    'updated_at',
    ...(definition?.columns ?? []).filter((c) => c.type === 'timestamp').map((c) => c.name),
  ]);
  const names = definition
    ? [
        'id',
        ...(definition.auth_table ? ['email', 'email_verified'] : []),
        ...definition.columns.map((c) => c.name),
        'created_at',
        'updated_at',
      ]
    : [];
  const allOnPage = (rows ?? []).map((r) => r.id);
  return (
    <div class="grid-wrap">
      <table
        class="grid rows"
        data-testid="rows"
        data-loading={loading ? 'true' : 'false'}
        data-live={live ? 'true' : 'false'}
      >
        <thead>
          <tr>
            <th class="select">
              <input
                type="checkbox"
                aria-label="Select all on this page"
                checked={allOnPage.length > 0 && allOnPage.every((id) => selected.has(id))}
                onChange={(e) =>
                  onSelect((e.currentTarget as HTMLInputElement).checked ? new Set(allOnPage) : new Set())
                }
              />
            </th>
            {names.map((name) => (
              <th
                key={name}
                class="sortable"
                onClick={() => onSort(name)}
                data-testid={`sort-${name}`}
                aria-sort={sort === name ? 'ascending' : sort === `-${name}` ? 'descending' : 'none'}
              >
                {name}
                <span class="sort-mark">{sort === name ? ' ▲' : sort === `-${name}` ? ' ▼' : ''}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((row) => (
            <tr key={row.id} data-row-id={row.id}>
              <td class="select">
                <input
                  type="checkbox"
                  aria-label={`Select ${row.id}`}
                  checked={selected.has(row.id)}
                  onChange={() => onToggle(row.id)}
                />
              </td>
              {names.map((name) => {
                const target = referenced.get(name);
                if (target && typeof row[name] === 'string')
                  return (
                    <ReferenceCell
                      key={name}
                      name={name}
                      table={target}
                      id={row[name] as string}
                      row={expandedOf(row, name)}
                      onClick={() => onOpen(row)}
                    />
                  );
                return (
                  // The click is a mouse shortcut to the row form; keyboard access to rows is still to be designed.
                  // biome-ignore lint/a11y/useKeyWithClickEvents: a mouse shortcut (see above)
                  <td
                    key={name}
                    class={name === 'id' ? 'mono link-cell' : cellClass(row[name])}
                    onClick={() => onOpen(row)}
                    title={cellText(row[name])}
                  >
                    {row[name] === null || row[name] === undefined ? (
                      <span class="null">null</span>
                    ) : dates.has(name) ? (
                      <DateTime value={row[name]} />
                    ) : (
                      cellText(row[name])
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
          {rows && rows.length === 0 && (
            <tr>
              <td colSpan={names.length + 1} class="empty">
                {emptyText}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The row a reference column points at, as expanded into `row.expand`; null when it is gone (or not expanded). */
function expandedOf(row: Row, column: string): Row | null {
  const expanded = (row.expand as Record<string, Row | null> | undefined)?.[column];
  return expanded ?? null;
}

/** A reference cell (ReferenceLabel); the whole id and table in the tooltip. */
function ReferenceCell({
  name,
  table,
  id,
  row,
  onClick,
}: {
  name: string;
  table: string;
  id: string;
  row: Row | null;
  onClick: () => void;
}) {
  return (
    // The click is a mouse shortcut to the row form; keyboard access to rows is still to be designed.
    // biome-ignore lint/a11y/useKeyWithClickEvents: a mouse shortcut (see above)
    <td
      class="reference"
      onClick={onClick}
      title={referenceTitle(table, id, row !== null)}
      data-testid={`reference-${name}`}
    >
      <ReferenceLabel id={id} row={row} />
    </td>
  );
}

function cellClass(value: unknown): string {
  if (typeof value === 'number') return 'num';
  if (typeof value === 'object' && value !== null) return 'mono small';
  return '';
}
