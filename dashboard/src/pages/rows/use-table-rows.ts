/**
 * The data of the rows grid: the table's definition, then one page of its rows with the rows
 * their reference columns point at (`expand=`). The rows wait for the definition, since an
 * unknown name in expand= would be refused.
 */
import { useEffect } from 'preact/hooks';
import { api, RowbaseError, type Page, type Row, type Table } from '../../api';
import type { Session } from '../../session';
import { useLoad, type Loaded } from '../../use-load';
import type { Position } from './use-page-trail';

/** The view of the rows asked for. */
export interface RowsQuery {
  position: Position;
  pageSize: number;
  sort: string;
  filter: string;
  /** Full-text search ('' for none; only on tables with search columns). */
  search: string;
}

/** A page of rows with the offset it was asked for. */
export interface ShownPage {
  offset: number;
  answer: Page<Row>;
}

/** What useTableRows returns. */
export interface TableRows {
  table: Loaded<Table>;
  /** Reference column → the table it points at. */
  referenced: ReadonlyMap<string, string>;
  rows: Loaded<ShownPage | undefined>;
}

/** Loads the definition of `tableName` and the page of rows `query` names. */
export function useTableRows(session: Session, projectId: string, tableName: string, query: RowsQuery): TableRows {
  const table = useLoad(() => api.getTable(session, projectId, tableName), [projectId, tableName]);
  const definition = table.data;
  const referenced = new Map(
    (definition?.columns ?? []).filter((c) => c.references).map((c) => [c.name, c.references!.table] as const),
  );
  // Without a definition (it failed to load), the rows come plain.
  const expand = definition ? [...referenced.keys()].join(',') : table.error ? '' : undefined;
  const { position, pageSize, sort, filter, search } = query;
  // The answer keeps the offset it was asked for: while the next page loads, the range shown stays the one on screen.
  const rows = useLoad(
    async () =>
      expand === undefined
        ? undefined
        : {
            offset: position.offset,
            answer: await api.listRows(session, projectId, tableName, {
              limit: pageSize,
              offset: position.offset,
              after: position.after,
              sort,
              filter,
              search,
              expand,
            }),
          },
    [projectId, tableName, position.offset, position.after, sort, filter, search, expand],
  );
  // A reference column dropped since the definition loaded (another admin, another tab) makes
  // expand= refused (the server names the parameter in error.field): load the definition again,
  // whose new expand loads the rows again. The same refusal after that leaves the error shown
  // (the rows' key does not change: no loop).
  useEffect(() => {
    const error = rows.error;
    if (error instanceof RowbaseError && error.code === 'VALIDATION_FILTER' && error.field === 'expand') table.reload();
  }, [rows.error]);
  return { table, referenced, rows };
}
