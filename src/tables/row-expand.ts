/**
 * Runs expansions (query/expand.ts) over a page of rows: one query per expansion node, batched
 * by the ids of the whole page (never a query per row). Forward rows appear only if the caller
 * may `view` them (else `null`); reverse rows only if the caller may `list` them, in creation
 * order, at most 100 per parent (a second, windowed query only when some parent has more).
 * Expanded rows are whole readable rows. Where the engine allows it (related-row-cache.ts),
 * rows a caller may see without a condition are kept between requests until the next write,
 * and only the ids not found there are read (still one query per node).
 */
import { AppError, isAppError } from '../errors/app-error.js';
import { parseExpand, type ExpandNode, type ReferenceMap } from '../query/expand.js';
import { sql, type Expr, type OrderTerm } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import type { RelatedRowCache, RelatedRowView } from './related-row-cache.js';
import { ruleCondition } from './row-access.js';

/** Rows listed per parent row by a reverse expansion. */
export const MAX_REVERSE_ROWS = 100;

/**
 * Most rows the plain reverse query may read before the windowed one takes over: a page of
 * 1,000 rows could otherwise read (and drop) 100,000 rows of one parent's children first.
 */
const PLAIN_REVERSE_READ_LIMIT = 2_000;

const CREATION_ORDER: readonly OrderTerm[] = [
  { column: 'created_at', descending: false },
  { column: 'id', descending: false },
];

/**
 * Creation order in memory, as the engines order it: created_at is a fixed-width ISO 8601
 * string and ids are ASCII, so code-unit order is time order and the engines' byte order.
 */
function byCreation(a: Row, b: Row): number {
  const at = String(a.created_at);
  const bt = String(b.created_at);
  if (at !== bt) return at < bt ? -1 : 1;
  const ai = String(a.id);
  const bi = String(b.id);
  return ai < bi ? -1 : ai > bi ? 1 : 0;
}

const referenceMaps = new WeakMap<ReadonlyMap<string, CompiledTable>, ReferenceMap>();

/** The reference columns of every table (column → referenced table), computed once per schema. */
export function referenceMapOf(tables: ReadonlyMap<string, CompiledTable>): ReferenceMap {
  let map = referenceMaps.get(tables);
  if (!map) {
    map = new Map(
      [...tables].map(
        ([name, table]) =>
          [
            name,
            new Map(
              table.definition.columns.filter((c) => c.references).map((c) => [c.name, c.references!.table] as const),
            ),
          ] as const,
      ),
    );
    referenceMaps.set(tables, map);
  }
  return map;
}

/**
 * The expansions `text` asks for on rows of `table`: parsed (query/expand.ts), then checked
 * against columns named `expand` (below). Throws VALIDATION_FILTER with `field: "expand"`.
 */
export function requestedExpansions(
  text: string,
  table: CompiledTable,
  tables: ReadonlyMap<string, CompiledTable>,
): ExpandNode[] {
  try {
    const nodes = parseExpand(text, table.name, referenceMapOf(tables));
    checkExpandKey(table, nodes, tables);
    return nodes;
  } catch (error) {
    throw namingExpand(error);
  }
}

/**
 * The refusal with `field: "expand"`: a client (the dashboard's rows grid, whose reference
 * columns may have been dropped meanwhile) tells it from a refused filter= by this member,
 * not by the message. Other errors pass unchanged.
 */
function namingExpand(error: unknown): unknown {
  if (!isAppError(error) || error.code !== 'VALIDATION_FILTER' || error.field !== undefined) return error;
  return new AppError('VALIDATION_FILTER', {
    message: error.message,
    suggestion: error.suggestion,
    headers: error.headers,
    field: 'expand',
    cause: error.cause,
  });
}

/**
 * Throws VALIDATION_FILTER when a row that would gain `expand` (the listed table's, or an
 * expanded row a path goes on below) has a column named `expand`: the expansion would replace
 * its value in the answer. The contract does not reserve the name, so such a table is refused
 * expansion rather than answered with a column silently overwritten.
 */
export function checkExpandKey(
  table: CompiledTable,
  nodes: readonly ExpandNode[],
  tables: ReadonlyMap<string, CompiledTable>,
): void {
  if (nodes.length === 0) return;
  if (table.readable.some((column) => column.name === 'expand')) {
    throw new AppError('VALIDATION_FILTER', {
      message:
        `expand: rows of "${table.name}" have a column named ` +
        '"expand", which the expanded rows would replace in the answer',
      suggestion:
        `Rename the column (PUT /p/{id}/v1/tables/${table.name}), ` + 'or read the related rows with a second request.',
    });
  }
  for (const node of nodes) checkExpandKey(tables.get(node.table)!, node.children, tables);
}

/** The top-level columns an expansion needs from the parent rows (forward references). */
export function forwardColumns(nodes: readonly ExpandNode[]): string[] {
  return nodes.filter((n) => n.kind === 'forward').map((n) => n.column);
}

/**
 * What an expansion needs besides the rows: every table of the project,
 * who asks, the request's time, and where rows are kept between requests.
 */
export interface ExpandScope {
  readonly tables: ReadonlyMap<string, CompiledTable>;
  readonly caller: Caller;
  readonly now: string;
  /** Absent: every expanded row is read from the database. */
  readonly related?: RelatedRowCache;
}

/** Adds `expand` to each row (and, for nested paths, to the expanded rows). Throws only storage errors. */
export async function expandRows(
  db: Executor,
  rows: readonly Row[],
  nodes: readonly ExpandNode[],
  scope: ExpandScope,
): Promise<void> {
  if (rows.length === 0 || nodes.length === 0) return;
  for (const row of rows) row.expand = {};
  for (const node of nodes) {
    const table = scope.tables.get(node.table)!;
    const children =
      node.kind === 'forward'
        ? await expandForward(db, table, rows, node, scope)
        : await expandReverse(db, table, rows, node, scope);
    if (node.children.length > 0) await expandRows(db, children, node.children, scope);
  }
}

/**
 * The rule condition, or 'hidden' when the operation is locked for this
 * caller (expanded rows and path hops are then hidden, not an error).
 */
export function visibility(
  table: CompiledTable,
  operation: 'view' | 'list',
  caller: Caller,
  now: string,
): Expr | undefined | 'hidden' {
  try {
    return ruleCondition(table, operation, caller, now);
  } catch (error) {
    if (isAppError(error) && error.code === 'FORBIDDEN') return 'hidden';
    throw error;
  }
}

/**
 * A row handed to a request that expands it further (`node` has children) gets
 * a copy: nested expansion writes `expand` into it, and kept rows are shared.
 */
function handOut(row: Row, node: ExpandNode): Row {
  return node.children.length > 0 ? { ...row } : row;
}

/** `handOut` for each row of a list; the list itself when `node` expands nothing below. */
function handOutAll(rows: readonly Row[], node: ExpandNode): readonly Row[] {
  return node.children.length > 0 ? rows.map((row) => ({ ...row })) : rows;
}

/** The kept rows' view when the caller sees every row of the table (no condition), else undefined. */
function cacheFor(
  db: Executor,
  condition: Expr | undefined | 'hidden',
  scope: ExpandScope,
): RelatedRowView | undefined {
  return condition === undefined ? scope.related?.at(db) : undefined;
}

/** Hands each id's kept value to `use`; returns the ids with none kept (all of them without a view), to be read. */
function takeKept<T>(
  ids: readonly string[],
  lookup: ((id: string) => T | undefined) | undefined,
  use: (id: string, kept: T) => void,
): readonly string[] {
  if (!lookup) return ids;
  const missing: string[] = [];
  for (const id of ids) {
    const kept = lookup(id);
    if (kept) use(id, kept);
    else missing.push(id);
  }
  return missing;
}

async function expandForward(
  db: Executor,
  table: CompiledTable,
  rows: readonly Row[],
  node: ExpandNode,
  scope: ExpandScope,
): Promise<Row[]> {
  const ids = [...new Set(rows.map((row) => row[node.column]).filter((id): id is string => typeof id === 'string'))];
  const condition = visibility(table, 'view', scope.caller, scope.now);
  const found = new Map<string, Row>();
  if (ids.length > 0 && condition !== 'hidden') {
    const cache = cacheFor(db, condition, scope);
    const missing = takeKept(ids, cache && ((id) => cache.forward(table, id)), (id, kept) =>
      found.set(id, handOut(kept, node)),
    );
    if (missing.length > 0) {
      const where = sql.and(
        { kind: 'in', expr: sql.column('id'), values: missing.map((id) => sql.value(id, 'text')) },
        condition,
      );
      for (const row of await db.all({ kind: 'select', table: table.name, columns: table.readable, where })) {
        cache?.storeForward(table, row);
        found.set(String(row.id), handOut(row, node));
      }
    }
  }
  for (const row of rows) {
    const id = row[node.column];
    (row.expand as Record<string, unknown>)[node.key] = typeof id === 'string' ? (found.get(id) ?? null) : null;
  }
  return [...found.values()];
}

async function expandReverse(
  db: Executor,
  table: CompiledTable,
  rows: readonly Row[],
  node: ExpandNode,
  scope: ExpandScope,
): Promise<Row[]> {
  const ids = [...new Set(rows.map((row) => String(row.id)))];
  const condition = visibility(table, 'list', scope.caller, scope.now);
  const byParent = new Map<string, readonly Row[]>();
  if (condition !== 'hidden') {
    const cache = cacheFor(db, condition, scope);
    const missing = takeKept(ids, cache && ((id) => cache.reverse(table, node.column, id)), (id, kept) =>
      byParent.set(id, handOutAll(kept, node)),
    );
    if (missing.length > 0) {
      const read = await readReverse(db, table, node, missing, condition);
      for (const id of missing) {
        const list = read.get(id) ?? [];
        cache?.storeReverse(table, node.column, id, list);
        byParent.set(id, handOutAll(list, node));
      }
    }
  }
  const listed: Row[] = [];
  for (const row of rows) {
    const list = byParent.get(String(row.id)) ?? [];
    (row.expand as Record<string, unknown>)[node.key] = list;
    // Only rows expanded further are returned for the next level.
    if (node.children.length > 0) listed.push(...list);
  }
  return listed;
}

/**
 * The rows related to each parent in `ids` (creation order, at most 100
 * each), read in one query (two when a parent has more than the bound).
 */
async function readReverse(
  db: Executor,
  table: CompiledTable,
  node: ExpandNode,
  ids: readonly string[],
  condition: Expr | undefined,
): Promise<Map<string, Row[]>> {
  const where = sql.and(
    { kind: 'in', expr: sql.column(node.column), values: ids.map((id) => sql.value(id, 'text')) },
    condition,
  );
  // A plain, unsorted query first, bounded by what the page may show (100 per parent, and
  // PLAIN_REVERSE_READ_LIMIT in all): when it stays within the bound it read every related
  // row, and each parent's rows are put in creation order here (a few per parent; the engine
  // would sort them all at once). Past the bound (a parent has many), a window query reads
  // the first 100 per parent instead; it costs more per row (SQLite materialises and sorts
  // twice), so it is not the default.
  const bound = Math.min(ids.length * MAX_REVERSE_ROWS, PLAIN_REVERSE_READ_LIMIT);
  let found = await db.all({ kind: 'select', table: table.name, columns: table.readable, where, limit: bound + 1 });
  if (found.length > bound) {
    found = await db.all({
      kind: 'select',
      table: table.name,
      columns: table.readable,
      where,
      orderBy: CREATION_ORDER,
      perValueLimit: { column: node.column, limit: MAX_REVERSE_ROWS },
    });
  }
  const byParent = new Map<string, Row[]>();
  for (const row of found) {
    const parent = String(row[node.column]);
    const list = byParent.get(parent);
    if (list) list.push(row);
    else byParent.set(parent, [row]);
  }
  for (const [parent, list] of byParent) byParent.set(parent, list.sort(byCreation).slice(0, MAX_REVERSE_ROWS));
  return byParent;
}
