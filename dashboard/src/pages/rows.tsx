/**
 * The rows grid of one table: server-side paging (by cursor, `after=`, so page 10,000 costs
 * what page 1 does; by offset on a server without cursors), sort by clicking a column,
 * a filter box in the filter language (the server's error shown inline), create/edit/delete
 * through the row form, and bulk delete of selected rows with confirmation. Reference columns
 * come with the rows they point at (`expand=`), and their cells show those rows' labels.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, RowbaseError, watchTable, type Row } from '../api';
import { DateTime } from '../components/date-time';
import { ErrorBox, Modal, PageHead } from '../components/ui';
import { href } from '../router';
import type { Session } from '../session';
import { useLoad } from '../use-load';
import { ReferenceLabel, referenceTitle } from './reference-label';
import { RowForm } from './row-form';
import { cellText } from './row-values';

const PAGE_SIZE = 50;
/** The empty selection (never mutated). */
const NO_SELECTION: ReadonlySet<string> = new Set();

/** Where a page starts: its offset (for display, and for servers without cursors) and the cursor that reaches it. */
interface Position {
  offset: number;
  after?: string;
}
const FIRST_PAGE: Position = { offset: 0 };

/** The rows page; `key` it by project and table so state resets on navigation. */
export function RowsPage({ session, projectId, tableName }: { session: Session; projectId: string; tableName: string }) {
  const table = useLoad(() => api.getTable(session, projectId, tableName), [projectId, tableName]);
  // The pages walked through: Next pushes the answer's next_cursor, Previous pops.
  const [trail, setTrail] = useState<Position[]>([FIRST_PAGE]);
  const position = trail[trail.length - 1]!;
  const offset = position.offset;
  const restart = () => setTrail([FIRST_PAGE]);
  const [sort, setSort] = useState('');
  const [filterText, setFilterText] = useState('');
  const [filter, setFilter] = useState('');
  const definition = table.data;
  // Reference column → the table it points at.
  const referenced = new Map((definition?.columns ?? []).filter((c) => c.references).map((c) => [c.name, c.references!.table] as const));
  // The reference columns to expand: known once the definition is in, so the rows wait for it
  // (an unknown name in expand= would be refused). Without a definition, the rows come plain.
  const expand = definition ? [...referenced.keys()].join(',') : table.error ? '' : undefined;
  // The answer keeps the offset it was asked for: while the next page loads, the range shown stays the one on screen.
  const rows = useLoad(
    async () => (expand === undefined ? undefined : { offset, answer: await api.listRows(session, projectId, tableName, { limit: PAGE_SIZE, offset, after: position.after, sort, filter, expand }) }),
    [projectId, tableName, offset, position.after, sort, filter, expand],
  );
  // A reference column dropped since the definition loaded (another admin, another tab) makes
  // expand= refused: load the definition again, whose new expand loads the rows again. The same
  // refusal after that leaves the error shown (the rows' key does not change: no loop).
  useEffect(() => {
    const error = rows.error;
    if (error instanceof RowbaseError && error.code === 'VALIDATION_FILTER' && error.field === 'expand') table.reload();
  }, [rows.error]);
  const [editing, setEditing] = useState<Row | 'new' | null>(null);
  // The selection belongs to the view it was made in (offset, sort, filter): a new view starts with
  // none. Derived in render, not reset by an effect, so a box ticked right after the view changed
  // is not cleared by a late effect.
  const view = JSON.stringify([offset, sort, filter]);
  const [selection, setSelection] = useState<{ view: string; ids: ReadonlySet<string> }>({ view, ids: new Set() });
  const selected = selection.view === view ? selection.ids : NO_SELECTION;
  const setSelected = (ids: ReadonlySet<string>) => setSelection({ view, ids });
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(null);

  // Live updates: reload the page shown when the table changes (coalesced: a bulk write is one reload).
  const [live, setLive] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(rows.reload, 150);
    };
    const stop = watchTable(session, projectId, tableName, changed, setLive);
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [projectId, tableName, session.token]);

  // Shown as dates: the two stamps every row has, and the table's timestamp columns.
  const dates = new Set(['created_at', 'updated_at', ...(definition?.columns ?? []).filter((c) => c.type === 'timestamp').map((c) => c.name)]);
  const names = definition ? ['id', ...(definition.auth_table ? ['email', 'email_verified'] : []), ...definition.columns.map((c) => c.name), 'created_at', 'updated_at'] : [];
  // After a refused filter, the previous answer's rows would look like its result: show none.
  const page = rows.error ? undefined : rows.data?.answer;
  const shownOffset = rows.data?.offset ?? 0;

  const toggleSort = (name: string) => {
    restart();
    setSort(sort === name ? `-${name}` : sort === `-${name}` ? '' : name);
  };
  const applyFilter = (event: Event) => {
    event.preventDefault();
    restart();
    setFilter(filterText.trim());
  };
  const toggle = (id: string) =>
    setSelection((s) => {
      const next = new Set(s.view === view ? s.ids : NO_SELECTION);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return { view, ids: next };
    });
  const deleteSelected = async () => {
    setDeleteError(null);
    try {
      for (const id of selected) await api.deleteRow(session, projectId, tableName, id);
      setConfirmDelete(false);
      setSelected(new Set());
      rows.reload();
    } catch (e) {
      setDeleteError(e);
      rows.reload();
    }
  };
  const deleteOne = async (row: Row) => {
    await api.deleteRow(session, projectId, tableName, row.id);
    setEditing(null);
    rows.reload();
  };

  const allOnPage = (page?.data ?? []).map((r) => r.id);
  const total = page?.meta.total ?? 0;
  const next = () => {
    const cursor = page?.meta.next_cursor;
    setTrail([...trail, { offset: shownOffset + PAGE_SIZE, after: typeof cursor === 'string' ? cursor : undefined }]);
  };
  const hasNext = !rows.loading && page !== undefined && (page.meta.next_cursor === undefined ? shownOffset + PAGE_SIZE < total : page.meta.next_cursor !== null);
  return (
    <section>
      <PageHead title={tableName} sub={`${page ? `${total} row${total === 1 ? '' : 's'}${filter ? ' match the filter' : ''}` : `Project ${projectId}`}${live ? ' · live' : ''}`}>
        <a class="button" href={href('p', projectId, 'tables', tableName, 'schema')} data-testid="open-schema">
          Schema
        </a>
        {selected.size > 0 && (
          <button type="button" class="danger" onClick={() => setConfirmDelete(true)} data-testid="delete-selected">
            Delete {selected.size} selected
          </button>
        )}
        <button type="button" class="primary" disabled={!definition} onClick={() => setEditing('new')} data-testid="new-row">
          New row
        </button>
      </PageHead>
      <ErrorBox error={table.error} />
      <form class="filter-bar" onSubmit={applyFilter}>
        <input
          name="filter"
          class="mono grow"
          aria-label="Filter"
          placeholder={'e.g. done = false && title ~ "milk"'}
          value={filterText}
          onInput={(e) => setFilterText((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" data-testid="apply-filter">
          Filter
        </button>
        {filter && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setFilterText('');
              setFilter('');
              restart();
            }}
          >
            Clear
          </button>
        )}
      </form>
      <ErrorBox error={rows.error} testId="rows-error" />
      <div class="grid-wrap">
        <table class="grid rows" data-testid="rows" data-loading={rows.loading ? 'true' : 'false'} data-live={live ? 'true' : 'false'}>
          <thead>
            <tr>
              <th class="select">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allOnPage.length > 0 && allOnPage.every((id) => selected.has(id))}
                  onChange={(e) => setSelected((e.currentTarget as HTMLInputElement).checked ? new Set(allOnPage) : new Set())}
                />
              </th>
              {names.map((name) => (
                <th key={name} class="sortable" onClick={() => toggleSort(name)} data-testid={`sort-${name}`} aria-sort={sort === name ? 'ascending' : sort === `-${name}` ? 'descending' : 'none'}>
                  {name}
                  <span class="sort-mark">{sort === name ? ' ▲' : sort === `-${name}` ? ' ▼' : ''}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(page?.data ?? []).map((row) => (
              <tr key={row.id} data-row-id={row.id}>
                <td class="select">
                  <input type="checkbox" aria-label={`Select ${row.id}`} checked={selected.has(row.id)} onChange={() => toggle(row.id)} />
                </td>
                {names.map((name) => {
                  const target = referenced.get(name);
                  if (target && typeof row[name] === 'string') return <ReferenceCell key={name} name={name} table={target} id={row[name] as string} row={expandedOf(row, name)} onClick={() => setEditing(row)} />;
                  return (
                    <td key={name} class={name === 'id' ? 'mono link-cell' : cellClass(row[name])} onClick={() => setEditing(row)} title={cellText(row[name])}>
                      {row[name] === null || row[name] === undefined ? <span class="null">null</span> : dates.has(name) ? <DateTime value={row[name]} /> : cellText(row[name])}
                    </td>
                  );
                })}
              </tr>
            ))}
            {page && page.data.length === 0 && (
              <tr>
                <td colSpan={names.length + 1} class="empty">
                  {filter ? 'No rows match this filter.' : 'No rows yet.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {page && (
        <div class="pager">
          <span class="muted" data-testid="page-info">
            {page.data.length === 0 ? 0 : shownOffset + 1}–{shownOffset + page.data.length} of {total}
          </span>
          <button type="button" disabled={trail.length === 1 || rows.loading} onClick={() => setTrail(trail.slice(0, -1))} data-testid="prev-page">
            Previous
          </button>
          <button type="button" disabled={!hasNext} onClick={next} data-testid="next-page">
            Next
          </button>
        </div>
      )}
      {editing && definition && (
        <RowForm
          session={session}
          projectId={projectId}
          table={definition}
          row={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onDelete={editing === 'new' ? undefined : () => deleteOne(editing)}
          onSaved={() => {
            setEditing(null);
            rows.reload();
          }}
        />
      )}
      {confirmDelete && (
        <Modal title={`Delete ${selected.size} row${selected.size === 1 ? '' : 's'}?`} onClose={() => setConfirmDelete(false)}>
          <p>The selected rows of {tableName} are deleted for good (rows that reference them follow their on_delete rule).</p>
          <ErrorBox error={deleteError} />
          <div class="actions">
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
            <button type="button" class="danger" onClick={deleteSelected} data-testid="confirm-delete-rows">
              Delete
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}

/** The row a reference column points at, as expanded into `row.expand`; null when it is gone (or not expanded). */
function expandedOf(row: Row, column: string): Row | null {
  const expanded = (row.expand as Record<string, Row | null> | undefined)?.[column];
  return expanded ?? null;
}

/** A reference cell (ReferenceLabel); the whole id and table in the tooltip. */
function ReferenceCell({ name, table, id, row, onClick }: { name: string; table: string; id: string; row: Row | null; onClick: () => void }) {
  return (
    <td class="reference" onClick={onClick} title={referenceTitle(table, id, row !== null)} data-testid={`reference-${name}`}>
      <ReferenceLabel id={id} row={row} />
    </td>
  );
}

function cellClass(value: unknown): string {
  if (typeof value === 'number') return 'num';
  if (typeof value === 'object' && value !== null) return 'mono small';
  return '';
}
