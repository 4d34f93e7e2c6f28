/**
 * The list operation of the data API (contract §6 and §13): the caller's filter ANDed with
 * the list rule, sort, select, offset or cursor paging, and the total. Keyset paging reads
 * one row past the page to know whether another page follows (`next_cursor` is null on the last).
 */
import { cursorScope, decodeCursor, encodeCursor, keysetCondition } from '../query/cursor.js';
import { parseListParams, type ListParams } from '../query/list-params.js';
import { sql, type ColumnRef, type Expr, type OrderTerm } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import { ruleCondition } from './row-access.js';
import { expandRows, forwardColumns, requestedExpansions, visibility } from './row-expand.js';
import { pathResolver } from './relation-paths.js';
import type { PathResolver } from '../query/filter-operands.js';
import type { ExpandNode } from '../query/expand.js';
import type { RelatedRowCache } from './related-row-cache.js';
import { hasSort, RANK_ORDER, takeSearch, type ListSearch } from './row-search.js';

/** One page of a list answer. */
export interface ListedPage {
  readonly rows: Row[];
  readonly total: number | null;
  readonly limit: number;
  readonly offset: number;
  /** The cursor of the page after this one, or null on the last page. */
  readonly nextCursor: string | null;
  /**
   * True when the rows hold readable columns only (no `expand`,
   * no aggregate outputs): the table's serialisers fit them.
   */
  readonly plain: boolean;
  /** The expansions the rows carry (empty when none, and for aggregates). */
  readonly expanded: readonly ExpandNode[];
}

/** What a list needs besides the table: who asks, the query string, the request's time, the project's cursor key. */
export interface ListRequest {
  readonly caller: Caller;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  readonly now: string;
  /** Signs cursors; per project (see query/cursor.ts). */
  readonly cursorKey: string;
  /** Every table of the project (for expand). */
  readonly tables: ReadonlyMap<string, CompiledTable>;
  /** Expanded rows kept between requests; absent: expansions read every row. */
  readonly related?: RelatedRowCache;
}

/** Lists visible rows of `table`. Throws VALIDATION_FILTER, FORBIDDEN. */
export async function listRows(db: Executor, table: CompiledTable, request: ListRequest): Promise<ListedPage> {
  const { query, search } = takeSearch(request.query, table);
  const parsed = parseListParams(query, table.filterable, request.now, callerPaths(table, request));
  const notNull = notNullColumns(table);
  // A search without sort comes most relevant first (contract §18).
  const ranked = search !== undefined && !hasSort(query) && !parsed.aggregate;
  const params = {
    ...parsed,
    orderBy: ranked
      ? [...RANK_ORDER]
      : parsed.orderBy.map((term) => (!term.expr && notNull.has(term.column) ? { ...term, notNull: true } : term)),
  };
  const expand = params.expand === undefined ? [] : requestedExpansions(params.expand, table, request.tables);
  const visible = sql.and(params.where, ruleCondition(table, 'list', request.caller, request.now));
  const filterSources = search ? [...params.filterSources, ['search', search.source] as const] : params.filterSources;
  const scope = cursorScope(table.name, params.orderBy, filterSources);
  if (params.aggregate) return listGroups(db, table, params, visible, scope, request.cursorKey, search);
  const searched = search && { search: search.clause };
  const after =
    params.after === undefined
      ? undefined
      : keysetCondition(
          params.orderBy,
          decodeCursor(request.cursorKey, scope, params.orderBy, params.after),
          table.filterable,
          notNull,
        );
  const where = sql.and(visible, after);
  const selected = params.select ? table.readable.filter((c) => params.select!.includes(c.name)) : table.readable;
  // The sort keys (and references to expand) are read even when select leaves them out: the cursor is made of them.
  const needed = [
    ...new Set([...params.orderBy.filter((term) => !term.expr).map((term) => term.column), ...forwardColumns(expand)]),
  ];
  // Relation-path sort keys come back as computed outputs named like the path, for the cursor.
  const computed = params.orderBy
    .filter((term) => term.expr)
    .map((term) => ({ key: term.column, expr: term.expr!, type: term.type! }));
  const extra = needed.filter((name) => !selected.some((c) => c.name === name));
  const columns: readonly ColumnRef[] =
    extra.length === 0 ? selected : [...selected, ...table.readable.filter((c) => extra.includes(c.name))];
  // A search's page reads (and ranks) every match anyway: it counts them in the same statement,
  // rather than a second one reading them all again. Not past a cursor, whose condition the
  // total must not see.
  const totalInPage = search !== undefined && params.countTotal && params.limit > 0 && after === undefined;
  const count = () =>
    db.count({ kind: 'count', table: table.name, ...(hasCondition(visible) && { where: visible }), ...searched });
  // Otherwise the total is counted beside the page, not after it (on PostgreSQL: on a second pooled connection).
  const counting = params.countTotal && !totalInPage ? count() : null;
  const [fetched, counted] = await Promise.all([
    params.limit === 0
      ? []
      : db.all({
          kind: 'select',
          table: table.name,
          columns,
          ...(computed.length > 0 && { computed }),
          ...(hasCondition(where) && { where }),
          ...searched,
          orderBy: params.orderBy,
          limit: params.limit + 1,
          offset: params.offset,
          ...(totalInPage && { totalAs: TOTAL }),
        }),
    counting,
  ]);
  let total = counted;
  if (totalInPage) {
    // An empty page carries no total: none past offset 0 means no match at all.
    total = fetched.length > 0 ? (fetched[0]![TOTAL] as number) : params.offset === 0 ? 0 : await count();
    for (const row of fetched) delete row[TOTAL];
  }
  const more = fetched.length > params.limit;
  const rows = more ? fetched.slice(0, params.limit) : fetched;
  const nextCursor = more ? encodeCursor(request.cursorKey, scope, params.orderBy, rows.at(-1)!) : null;
  // Only when asked: an await costs a turn of the microtask queue even when nothing is expanded.
  if (expand.length > 0) await expandRows(db, rows, expand, request);
  for (const name of [...extra, ...computed.map((c) => c.key)]) for (const row of rows) delete row[name];
  return {
    rows,
    total,
    limit: params.limit,
    offset: params.offset,
    nextCursor,
    plain: expand.length === 0,
    expanded: expand,
  };
}

/** The key a search's page carries its total under (no column starts with `_`). */
const TOTAL = '_rb_total';

/** The offset pseudo-key of cursors over groups. */
const GROUP_OFFSET: readonly OrderTerm[] = Object.freeze([{ column: '#offset', descending: false }]);

/**
 * An aggregate select: one row per group (no id), under the list rule and filter; total is the
 * number of groups. Cursors over groups carry the next offset (signed and bound like row cursors):
 * the groups of a filtered table are few, so the keyset's constant cost is not needed there.
 */
async function listGroups(
  db: Executor,
  table: CompiledTable,
  params: ListParams,
  visible: Expr,
  scope: string,
  cursorKey: string,
  search: ListSearch | undefined,
): Promise<ListedPage> {
  const aggregate = params.aggregate!;
  const searched = search && { search: search.clause };
  const offset =
    params.after === undefined ? params.offset : Number(decodeCursor(cursorKey, scope, GROUP_OFFSET, params.after)[0]);
  const groupColumns = aggregate.groupBy.map((name) => table.readable.find((c) => c.name === name)!);
  const fetched =
    params.limit === 0
      ? []
      : await db.all({
          kind: 'select',
          table: table.name,
          columns: groupColumns,
          aggregates: aggregate.outputs,
          ...(hasCondition(visible) && { where: visible }),
          ...searched,
          orderBy: params.orderBy,
          limit: params.limit + 1,
          offset,
        });
  const more = fetched.length > params.limit;
  const rows = more ? fetched.slice(0, params.limit) : fetched;
  const nextCursor = more ? encodeCursor(cursorKey, scope, GROUP_OFFSET, { '#offset': offset + rows.length }) : null;
  let total: number | null = null;
  if (params.countTotal) {
    // Without grouping columns the whole (filtered) table is one group; a last page that is not
    // past the end tells the number of groups without grouping the table a second time.
    if (aggregate.groupBy.length === 0) total = 1;
    else if (params.limit > 0 && !more && (rows.length > 0 || offset === 0)) total = offset + rows.length;
    else
      total = await db.count({
        kind: 'count',
        table: table.name,
        groupBy: aggregate.groupBy,
        ...(hasCondition(visible) && { where: visible }),
        ...searched,
      });
  }
  return {
    rows,
    total,
    limit: params.limit,
    offset: params.after === undefined ? params.offset : 0,
    nextCursor,
    plain: false,
    expanded: [],
  };
}

/**
 * Relation paths in a caller's own filter, shorthand and sort: every hop reads a related row
 * only if the caller may view it (else the path is null), so filtering cannot probe hidden rows.
 * The admin key reads freely.
 */
export function callerPaths(
  table: CompiledTable,
  request: Pick<ListRequest, 'caller' | 'now' | 'tables'>,
): PathResolver | undefined {
  if (!table.schemaDefinitions) return undefined;
  const { caller, now, tables } = request;
  if (caller.kind === 'admin') return pathResolver(table.schemaDefinitions, table.name);
  return pathResolver(table.schemaDefinitions, table.name, (name) => {
    const hop = tables.get(name);
    return hop ? visibility(hop, 'view', caller, now) : 'hidden';
  });
}

const notNullSets = new WeakMap<CompiledTable, ReadonlySet<string>>();

/** Columns that never hold null: the system columns and `required` ones (keyset conditions skip their null cases). */
function notNullColumns(table: CompiledTable): ReadonlySet<string> {
  let set = notNullSets.get(table);
  if (!set) {
    set = new Set([
      'id',
      'created_at',
      'updated_at',
      ...table.definition.columns.filter((c) => c.required).map((c) => c.name),
    ]);
    notNullSets.set(table, set);
  }
  return set;
}

function hasCondition(where: Expr): boolean {
  return where.kind !== 'and' || where.items.length > 0;
}

/**
 * One visible row (contract §6 get) with `expand=` when asked. Throws ROW_NOT_FOUND via
 * `notFound` when the view rule hides it, VALIDATION_FILTER for a bad expand, FORBIDDEN.
 */
export async function getRow(
  db: Executor,
  table: CompiledTable,
  rowId: string,
  request: ListRequest,
  notFound: () => Error,
): Promise<Row> {
  const expandText =
    typeof request.query.expand === 'string' && request.query.expand.trim() !== '' ? request.query.expand : undefined;
  const expand = expandText === undefined ? [] : requestedExpansions(expandText, table, request.tables);
  const condition = ruleCondition(table, 'view', request.caller, request.now);
  const row = await db.first({
    kind: 'select',
    table: table.name,
    columns: table.readable,
    where: sql.and(sql.eq('id', rowId), condition),
  });
  if (!row) throw notFound();
  if (expand.length > 0) await expandRows(db, [row], expand, request);
  return row;
}
