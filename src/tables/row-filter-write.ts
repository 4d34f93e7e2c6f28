/**
 * Update and delete by filter (contract §18): `PATCH|DELETE /api/{table}?filter=...`. The
 * caller's filter and the table's rule become one WHERE of one statement (never rows read and
 * then written one by one), the 10,000-row bound is counted before anything is written, and
 * `dry_run=true` answers the count alone. The statement logs one realtime event per touched row
 * in the database itself (`Executor.writeLoggingRows`): no row comes back to JavaScript.
 */
import { AppError } from '../errors/app-error.js';
import { parseListParams } from '../query/list-params.js';
import { sql, type Assignment, type DeleteStatement, type Expr, type UpdateStatement } from '../query/sql-tree.js';
import type { Executor, LoggedWrite } from '../store/types.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import { callerPaths } from './row-list.js';
import type { RowValues } from './row-validator.js';
import { translateWriteError } from './write-errors.js';
import { StoreError } from '../store/types.js';

/** Most rows one update or delete by filter may touch; more matching rows refuse the request. */
export const MAX_FILTER_WRITE_ROWS = 10_000;

/** The query parameters of a write by filter; any other name is refused (it would be silently ignored). */
const PARAMETERS = new Set(['filter', 'dry_run']);

/** What a write by filter targets: the filter as SQL (undefined for `filter=true`), and whether to count only. */
export interface FilterTarget {
  readonly where: Expr | undefined;
  readonly dryRun: boolean;
}

/** Who asks and when, with the project's tables (relation paths in the filter). */
export interface FilterWriteRequest {
  readonly caller: Caller;
  readonly now: string;
  readonly tables: ReadonlyMap<string, CompiledTable>;
}

const refuse = (message: string, suggestion: string) => new AppError('VALIDATION_FILTER', { message, suggestion });

/**
 * Parses `filter` (required; `true` means every row) and `dry_run` (true or false) of a write
 * by filter, with the caller's guarded relation paths as a list filter has them.
 * Throws VALIDATION_FILTER for a missing or invalid filter, a bad dry_run, a repeated or unknown parameter.
 */
export function parseFilterTarget(
  table: CompiledTable,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  request: FilterWriteRequest,
): FilterTarget {
  for (const [name, value] of Object.entries(query)) {
    if (!PARAMETERS.has(name))
      throw refuse(
        `${name}: not a parameter of an update or delete by filter.`,
        'Put every condition in filter (for example: filter=done = true && owner = "ada"); ' +
          'the other parameters are dry_run=true and nothing else.',
      );
    if (typeof value !== 'string')
      throw refuse(`${name}: given ${value?.length ?? 0} times.`, 'Give each parameter once; join conditions with &&.');
  }
  const filter = (query.filter as string | undefined)?.trim() ?? '';
  if (filter === '')
    throw refuse(
      'filter: required for an update or delete by filter.',
      'Name the rows with filter=<expression> (for example: filter=done = true), or filter=true for every row.',
    );
  const dryRun = query.dry_run as string | undefined;
  if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false')
    throw refuse(
      `dry_run: expected true or false, found "${dryRun.slice(0, 40)}".`,
      'Use dry_run=true or leave it out.',
    );
  const where =
    filter === 'true'
      ? undefined
      : parseListParams({ filter }, table.filterable, request.now, callerPaths(table, request)).where;
  return { where, dryRun: dryRun === 'true' };
}

/**
 * Throws VALIDATION_FAILED when an update by filter names `password` or `email` of an auth
 * table (the admin key included): each user's new password or address brings its own tokens
 * and links to end, so it goes through PATCH of that one row. Non-admins are refused before
 * this, as PATCH refuses them (row-access.ts `checkProtectedFields`).
 */
export function refuseCredentialFields(table: CompiledTable, body: unknown): void {
  if (!table.definition.auth_table || typeof body !== 'object' || body === null) return;
  for (const field of ['password', 'email'] as const) {
    if (field in body)
      throw new AppError('VALIDATION_FAILED', {
        message: `${field}: cannot be set by filter; it is one user's own.`,
        suggestion: `Remove "${field}" from the body, and change it with PATCH /p/{id}/api/${table.name}/{row_id}.`,
      });
  }
}

/** The UPDATE of every row meeting `where` to the validated `values`, stamping updated_at with `now`. */
export function planFilterUpdate(table: CompiledTable, values: RowValues, where: Expr, now: string): UpdateStatement {
  const column = (name: string) => table.physical.get(name)!;
  const set: Assignment[] = Object.entries(values).map(([name, value]) => ({
    column: column(name),
    value: sql.value(value, column(name).type),
  }));
  set.push({ column: column('updated_at'), value: sql.value(now, 'timestamp') });
  return { kind: 'update', table: table.name, set, where };
}

/** The DELETE of every row meeting `where`. */
export function planFilterDelete(table: CompiledTable, where: Expr): DeleteStatement {
  return { kind: 'delete', table: table.name, where };
}

/**
 * Counts the rows meeting `where` and throws VALIDATION_FILTER when there are more than the
 * bound: run before a write, so a refused request has written nothing.
 */
export async function countWithinBound(db: Executor, table: CompiledTable, where: Expr): Promise<number> {
  const count = await db.count({ kind: 'count', table: table.name, where });
  if (count > MAX_FILTER_WRITE_ROWS) throw tooMany(count);
  return count;
}

/**
 * In a transaction: the bound, then the one UPDATE or DELETE statement, which logs one realtime
 * event per touched row, the row as the data API shows it (new values for an update, the row
 * as it was for a delete), exactly as a single-row write logs it. The bound is checked again on
 * what the statement touched (rows committed by others between the two statements): the error
 * rolls the transaction back. Webhooks (§16) and the deletion of deleted rows' files (§14) will
 * read the same entries from the log.
 */
export async function writeByFilter(
  tx: Executor,
  table: CompiledTable,
  statement: UpdateStatement | DeleteStatement,
  now: string,
): Promise<LoggedWrite> {
  await countWithinBound(tx, table, statement.where);
  const written = await tx.writeLoggingRows(statement, { createdAt: now, record: table.readable });
  if (written.count > MAX_FILTER_WRITE_ROWS) throw tooMany(written.count);
  return written;
}

/**
 * Translates a delete by filter refused by a reference (`on_delete: "restrict"`, directly or
 * through a cascade) into CONFLICT_REFERENCE naming the restricting tables; other store errors
 * as any write's.
 */
export function translateFilterDeleteError(
  error: unknown,
  table: CompiledTable,
  tables: ReadonlyMap<string, CompiledTable>,
): unknown {
  if (!(error instanceof StoreError) || error.kind !== 'reference') return translateWriteError(error, table.name);
  const restricting = restrictingColumns(table.name, [...tables.values()]);
  return new AppError('CONFLICT_REFERENCE', {
    // No counts and no ids: the caller may not be allowed to list those tables.
    message:
      `Rows of another table still refer to rows of "${table.name}" this filter matches ` +
      '(directly or through a cascade), with on_delete: "restrict"' +
      (restricting.length > 0 ? `: ${restricting.join(', ')}` : '') +
      '. Nothing was deleted.',
    suggestion:
      'Delete the rows that refer to them or change their reference first, narrow the filter, or ' +
      'redeclare the referring column with "on_delete": "cascade" or "set_null".',
  });
}

/**
 * The columns that can refuse deleting rows of `tableName`: `on_delete: "restrict"` references
 * to it, or to any table its deletes cascade into.
 */
function restrictingColumns(tableName: string, tables: readonly CompiledTable[]): string[] {
  const reached = [tableName];
  const found: string[] = [];
  for (let i = 0; i < reached.length; i++) {
    for (const other of tables) {
      for (const { name, references } of other.definition.columns) {
        if (references === undefined || references.table !== reached[i]) continue;
        if (references.on_delete === 'restrict') found.push(`"${other.name}" (column "${name}")`);
        if (references.on_delete === 'cascade' && !reached.includes(other.name)) reached.push(other.name);
      }
    }
  }
  return found;
}

function tooMany(count: number): AppError {
  return refuse(
    `filter: matches ${count} rows; an update or delete by filter touches at most ${MAX_FILTER_WRITE_ROWS}. ` +
      'Nothing was written.',
    `Narrow the filter so that at most ${MAX_FILTER_WRITE_ROWS} rows match (dry_run=true answers the count), ` +
      'and split the work into several requests.',
  );
}
