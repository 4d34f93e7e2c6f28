/**
 * The rows grid of one table: server-side paging (by cursor, `after=`, so page 10,000 costs
 * what page 1 does; by offset on a server without cursors), sort by clicking a column,
 * a filter box in the filter language (the server's error shown inline), a search box on tables
 * with search columns (full-text, most relevant first unless sorted), create/edit/delete
 * through the row form, and bulk delete of selected rows with confirmation. Reference columns
 * come with the rows they point at (`expand=`), and their cells show those rows' labels.
 * The parts live in rows/: hooks for the data, the page trail, the selection and live
 * updates; components for the grid, the filter bar, the pager and the delete dialog.
 */
import { useState } from 'preact/hooks';
import { api, type Row } from '../api';
import { ErrorBox, PageHead } from '../components/ui';
import { href } from '../router';
import type { Session } from '../session';
import { RowForm } from './row-form';
import { DeleteRowsDialog } from './rows/delete-rows-dialog';
import { FilterBar } from './rows/filter-bar';
import { Pager } from './rows/pager';
import { SearchBar } from './rows/search-bar';
import { RowsGrid } from './rows/rows-grid';
import { useLiveReload } from './rows/use-live-reload';
import { usePageTrail } from './rows/use-page-trail';
import { useTableRows } from './rows/use-table-rows';
import { useViewSelection } from './rows/use-view-selection';

const PAGE_SIZE = 50;

/** The rows page; `key` it by project and table so state resets on navigation. */
export function RowsPage({
  session,
  projectId,
  tableName,
}: {
  session: Session;
  projectId: string;
  tableName: string;
}) {
  const trail = usePageTrail();
  const [sort, setSort] = useState('');
  const [filter, setFilter] = useState('');
  const [search, setSearch] = useState('');
  const { table, referenced, rows } = useTableRows(session, projectId, tableName, {
    position: trail.position,
    pageSize: PAGE_SIZE,
    sort,
    filter,
    search,
  });
  const definition = table.data;
  const { selected, setSelected, toggle } = useViewSelection(
    JSON.stringify([trail.position.offset, sort, filter, search]),
  );
  const [editing, setEditing] = useState<Row | 'new' | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const live = useLiveReload(session, projectId, tableName, rows.reload);

  // After a refused filter, the previous answer's rows would look like its result: show none.
  const page = rows.error ? undefined : rows.data?.answer;
  const shownOffset = rows.data?.offset ?? 0;
  const total = page?.meta.total ?? 0;
  const hasNext =
    !rows.loading &&
    page !== undefined &&
    (page.meta.next_cursor === undefined ? shownOffset + PAGE_SIZE < total : page.meta.next_cursor !== null);
  const toggleSort = (name: string) => {
    trail.restart();
    setSort(sort === name ? `-${name}` : sort === `-${name}` ? '' : name);
  };
  const applyFilter = (next: string) => {
    trail.restart();
    setFilter(next);
  };
  const applySearch = (next: string) => {
    trail.restart();
    setSearch(next);
  };
  const deleteOne = async (row: Row) => {
    await api.deleteRow(session, projectId, tableName, row.id);
    setEditing(null);
    rows.reload();
  };

  const narrowed = [filter && 'the filter', search && 'the search'].filter(Boolean).join(' and ');
  const counted = page ? `${total} row${total === 1 ? '' : 's'}${narrowed ? ` match ${narrowed}` : ''}` : undefined;

  return (
    <section>
      <PageHead title={tableName} sub={`${counted ?? `Project ${projectId}`}${live ? ' · live' : ''}`}>
        <a class="button" href={href('p', projectId, 'tables', tableName, 'schema')} data-testid="open-schema">
          Schema
        </a>
        {selected.size > 0 && (
          <button type="button" class="danger" onClick={() => setConfirmDelete(true)} data-testid="delete-selected">
            Delete {selected.size} selected
          </button>
        )}
        <button
          type="button"
          class="primary"
          disabled={!definition}
          onClick={() => setEditing('new')}
          data-testid="new-row"
        >
          New row
        </button>
      </PageHead>
      <ErrorBox error={table.error} />
      {(definition?.search?.length ?? 0) > 0 && (
        <SearchBar search={search} columns={definition!.search!} onApply={applySearch} />
      )}
      <FilterBar filter={filter} onApply={applyFilter} />
      <ErrorBox error={rows.error} testId="rows-error" />
      <RowsGrid
        definition={definition}
        referenced={referenced}
        rows={page?.data}
        loading={rows.loading}
        live={live}
        sort={sort}
        onSort={toggleSort}
        selected={selected}
        onSelect={setSelected}
        onToggle={toggle}
        onOpen={setEditing}
        emptyText={narrowed ? `No rows match ${narrowed}.` : 'No rows yet.'}
      />
      {page && (
        <Pager
          offset={shownOffset}
          count={page.data.length}
          total={total}
          previousDisabled={trail.atFirst || rows.loading}
          nextDisabled={!hasNext}
          onPrevious={trail.previous}
          onNext={() => trail.next(shownOffset, PAGE_SIZE, page.meta.next_cursor)}
        />
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
        <DeleteRowsDialog
          session={session}
          projectId={projectId}
          tableName={tableName}
          ids={selected}
          onClose={() => setConfirmDelete(false)}
          onDeleted={() => {
            setConfirmDelete(false);
            setSelected(new Set());
            rows.reload();
          }}
          onFailed={rows.reload}
        />
      )}
    </section>
  );
}
