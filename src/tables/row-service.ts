/**
 * The generated data API's operations on one table: list, get, create, bulk create,
 * update, delete. Each is a pipeline: parse the input → plan (rules, validation) → execute
 * in one transaction → return plain rows. No HTTP here.
 */
import { AppError } from '../errors/app-error.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { sql, type ColumnRef, type Expr } from '../query/sql-tree.js';
import type { Database, Executor, LoggedWrite, ProjectDatabase, Row } from '../store/types.js';
import { appendRowChanges, type ChangeFeed, type LoggedEvent, type RowChange } from '../changes/event-log.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import type { CredentialsPort } from './credentials-port.js';
import { buildExpandedRowJson, type RowJson } from './row-json.js';
import { checkProtectedFields, refuseUserCreation, ruleCondition } from './row-access.js';
import { getRow, listRows } from './row-list.js';
import { rowNotFound, tableNotFound } from './not-found.js';
import type { RelatedRowCache } from './related-row-cache.js';
import type { ExpandNode } from '../query/expand.js';
import type { RowValues } from './row-validator.js';
import type { ProjectSchema, SchemaService } from './schema-service.js';
import {
  canWriteTogether,
  RowsRefusedTogether,
  writeRows,
  type InsertPlan,
  type WriteRowsOptions,
} from './row-insert.js';
import { planUpdate, writeUpdate } from './row-update.js';
import { translateDeleteError, translateRowWriteError, translateWriteError } from './write-errors.js';
import {
  countWithinBound,
  parseFilterTarget,
  planFilterDelete,
  planFilterUpdate,
  refuseCredentialFields,
  translateFilterDeleteError,
  writeByFilter,
} from './row-filter-write.js';
import {
  canBatch,
  conflictTarget,
  planUpsert,
  RowByRowNeeded,
  writeUpsertBatches,
  writeUpserts,
  type UpsertedRow,
} from './row-upsert.js';

export const MAX_BULK_ROWS = 10_000;

const ID_COLUMN: readonly ColumnRef[] = Object.freeze([Object.freeze({ name: 'id', type: 'text' as const })]);

/** The query string of an update or delete by filter (`filter`, `dry_run`). */
export type FilterQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Who asks, about which project; passed to every operation. */
export interface RowContext {
  readonly projectId: string;
  readonly caller: Caller;
  /** The project's minimum password length (auth tables). */
  readonly minPasswordLength: number;
  /**
   * Signs list cursors (query/cursor.ts); derived from a project secret.
   * Absent: a fixed key (cursors still detect edits, not forgeries).
   */
  readonly cursorKey?: string;
}

export interface RowPage {
  readonly rows: Row[];
  readonly total: number | null;
  readonly limit: number;
  readonly offset: number;
  /** The cursor of the page after this one, or null on the last page. */
  readonly nextCursor: string | null;
  /**
   * The table's response serialisers when the rows are plain rows of it (else the answer is written by JSON.stringify).
   */
  readonly json: RowJson | undefined;
}

/** One row read, with the table's response serialisers when it is a plain row (no `expand`). */
export interface RowRead {
  readonly row: Row;
  readonly json: RowJson | undefined;
}

/**
 * Rows a create wrote, with the answer's JSON text: built from the text of each row that the
 * event log stored, so a bulk of 1,000 rows is serialised once, not twice.
 */
export interface CreatedRows {
  readonly rows: Row[];
  /** `{"data": row}` (create) or `{"data": [rows]}` (bulk), the same text JSON.stringify writes. */
  readonly json: string;
}

/** What the row service is built from. */
export interface RowServiceDeps {
  readonly schemas: SchemaService;
  /**
   * Prepares and voids auth-table credentials (auth/ implements
   * it: tables/ knows no password policy, session or mailed link).
   */
  readonly credentials: CredentialsPort;
  readonly clock: Clock;
  /** Told about each write's realtime events once it committed. */
  readonly feed?: ChangeFeed;
  /** Expanded rows kept between requests (related-row-cache.ts); absent: expansions read every row. */
  readonly related?: RelatedRowCache;
}

/** How rows are created: one body or a bulk array, by the data API or by an auth flow. */
export interface CreateOptions {
  /** A bulk request: errors name the index of the failing row. */
  readonly bulk: boolean;
  /**
   * The auth flows create this user themselves (signup): the data API's refusal of user
   * creation to non-admin callers does not apply, while the create rule still does.
   */
  readonly byAuthFlow?: boolean;
}

/** The data API's row operations, and the plan and write phases of a create for the auth flows. */
export class RowService {
  private readonly schemas: SchemaService;
  private readonly credentials: CredentialsPort;
  private readonly clock: Clock;
  private readonly feed: ChangeFeed | undefined;
  private readonly related: RelatedRowCache | undefined;

  constructor(deps: RowServiceDeps) {
    this.schemas = deps.schemas;
    this.credentials = deps.credentials;
    this.clock = deps.clock;
    this.feed = deps.feed;
    this.related = deps.related;
  }

  /** Lists visible rows. Throws VALIDATION_FILTER, FORBIDDEN, TABLE_NOT_FOUND. */
  async list(
    context: RowContext,
    tableName: string,
    query: Record<string, string | string[] | undefined>,
  ): Promise<RowPage> {
    const { db, table, tables } = this.openNow(context, tableName) ?? (await this.open(context, tableName));
    const page = await listRows(db, table, {
      caller: context.caller,
      query,
      now: isoNow(this.clock),
      cursorKey: context.cursorKey ?? `rowbase-cursor:${context.projectId}`,
      tables,
      ...(this.related && { related: this.related }),
    });
    return {
      ...page,
      json: page.plain
        ? table.json
        : page.expanded.length > 0
          ? expandedJson(table, String(query.expand), page.expanded, tables)
          : undefined,
    };
  }

  /** One visible row, with `expand=` from `query` when given. Throws ROW_NOT_FOUND, FORBIDDEN, VALIDATION_FILTER. */
  async get(
    context: RowContext,
    tableName: string,
    rowId: string,
    query: Record<string, string | string[] | undefined> = {},
  ): Promise<RowRead> {
    const { db, table, tables } = this.openNow(context, tableName) ?? (await this.open(context, tableName));
    const request = {
      caller: context.caller,
      query,
      now: isoNow(this.clock),
      cursorKey: '',
      tables,
      ...(this.related && { related: this.related }),
    };
    const row = await getRow(db, table, rowId, request, () => rowNotFound(table.name, rowId));
    // Any `expand` parameter (even one that expands nothing) takes JSON.stringify: plain rows only here.
    return { row, json: query.expand === undefined ? table.json : undefined };
  }

  /**
   * Throws TABLE_NOT_FOUND, or FORBIDDEN when the caller may never create rows in the table
   * (locked rule, or an auth table for non-admins): checked before a request body is read.
   */
  async checkCreateAllowed(context: RowContext, tableName: string): Promise<void> {
    const { table } = await this.open(context, tableName);
    refuseUserCreation(table, context.caller);
    checkCreateNotLocked(table, context, isoNow(this.clock));
  }

  /** Creates a row. Throws VALIDATION_*, FORBIDDEN, CONFLICT_UNIQUE, CONFLICT_REFERENCE. */
  async create(context: RowContext, tableName: string, body: unknown): Promise<CreatedRows> {
    const { rows, texts } = await this.insert(context, tableName, [body], { bulk: false });
    return { rows, json: `{"data":${texts[0]!}}` };
  }

  /** Creates all rows or none; errors name the index of the first bad row. */
  async bulkCreate(context: RowContext, tableName: string, body: unknown): Promise<CreatedRows> {
    const { rows, texts } = await this.insert(context, tableName, bulkBodies(body), { bulk: true });
    return { rows, json: `{"data":[${texts.join(',')}]}` };
  }

  /**
   * Inserts each row, or updates the row holding its value of the unique column `onConflict`
   * (row-upsert.ts), all or none; `bulk` errors name the index of the first bad row. Throws
   * VALIDATION_* (also for a column that is not unique), FORBIDDEN, CONFLICT_UNIQUE, CONFLICT_REFERENCE.
   */
  async upsert(
    context: RowContext,
    tableName: string,
    body: unknown,
    onConflict: unknown,
    bulk: boolean,
  ): Promise<{ rows: UpsertedRow[]; json: string }> {
    const { db, table } = await this.open(context, tableName);
    const target = conflictTarget(table, onConflict);
    const bodies = bulk ? bulkBodies(body) : [body];
    const plan = planUpsert(await this.planCreate(context, table, bodies, { bulk }), target, bodies, context.caller);
    // Each row's JSON text is written once, for the event log and the answer alike.
    let texts: string[] = [];
    const changes = (rows: UpsertedRow[]): RowChange[] => {
      texts = rows.map(({ row }) => JSON.stringify(row));
      return rows.map(({ row, inserted }, i) => ({
        table: table.name,
        action: inserted ? 'create' : 'update',
        record: row,
        recordJson: texts[i]!,
      }));
    };
    const write = (rowByRow: boolean) =>
      this.writeLogged(
        context.projectId,
        db,
        (tx) => (rowByRow ? writeUpserts(tx, plan) : writeUpsertBatches(tx, plan)),
        changes,
        plan.insert.now,
      );
    try {
      // Batches first where they apply; a failing batch rolls back and the rows go one by one, which names the culprit.
      const rows = await write(!canBatch(plan)).catch((error: unknown) => {
        if (error instanceof RowByRowNeeded) return write(true);
        throw error;
      });
      return { rows, json: bulk ? `{"data":[${texts.join(',')}]}` : `{"data":${texts[0]!}}` };
    } catch (error) {
      throw translateWriteError(error, table.name);
    }
  }

  /** Updates a visible row. Throws ROW_NOT_FOUND, VALIDATION_*, FORBIDDEN, CONFLICT_*. */
  async update(context: RowContext, tableName: string, rowId: string, body: unknown): Promise<Row> {
    const { db, table } = await this.open(context, tableName);
    const now = isoNow(this.clock);
    checkProtectedFields(table, context.caller, body);
    const values = await this.prepareCredentials(context, table, table.validators().update(body), { creating: false });
    const plan = planUpdate(table, rowId, values, ruleCondition(table, 'update', context.caller, now, values), now);
    try {
      return await this.writeLogged(
        context.projectId,
        db,
        (tx) => writeUpdate(tx, plan, this.credentials),
        (row) => [{ table: table.name, action: 'update', record: row }],
        now,
      );
    } catch (error) {
      throw await translateRowWriteError(error, db, table, values);
    }
  }

  /** Deletes a visible row. Throws ROW_NOT_FOUND, FORBIDDEN, CONFLICT_REFERENCE. */
  async delete(context: RowContext, tableName: string, rowId: string): Promise<void> {
    const { db, table, tables } = await this.open(context, tableName);
    const now = isoNow(this.clock);
    const condition = ruleCondition(table, 'delete', context.caller, now);
    try {
      await this.writeLogged(
        context.projectId,
        db,
        async (tx) => {
          const deleted = await tx.all({
            kind: 'delete',
            table: table.name,
            where: sql.and(sql.eq('id', rowId), condition),
            returning: table.readable,
          });
          if (deleted.length === 0) throw rowNotFound(table.name, rowId);
          if (table.definition.auth_table) await this.credentials.forgetUser(tx, rowId);
          return deleted;
        },
        (rows) => rows.map((record) => ({ table: table.name, action: 'delete' as const, record })),
        now,
      );
    } catch (error) {
      throw await translateDeleteError(error, db, tables.values(), table, rowId);
    }
  }

  /**
   * Updates the rows matching `query.filter` that the update rule lets the caller change, in one
   * statement (contract §18); with `dry_run=true` only counts them. Returns the count. Throws
   * VALIDATION_FILTER (no or bad filter, over 10,000 rows), VALIDATION_*, FORBIDDEN, CONFLICT_*.
   */
  async updateWhere(context: RowContext, tableName: string, query: FilterQuery, body: unknown): Promise<number> {
    const { db, table, tables } = await this.open(context, tableName);
    const now = isoNow(this.clock);
    const target = parseFilterTarget(table, query, { caller: context.caller, now, tables });
    checkProtectedFields(table, context.caller, body);
    refuseCredentialFields(table, body);
    const values = table.validators().update(body);
    const where = sql.and(target.where, ruleCondition(table, 'update', context.caller, now, values));
    if (target.dryRun) return countWithinBound(db, table, where);
    const statement = planFilterUpdate(table, values, where, now);
    try {
      return await this.writeByFilterLogged(context.projectId, db, (tx) => writeByFilter(tx, table, statement, now));
    } catch (error) {
      throw await translateRowWriteError(error, db, table, values);
    }
  }

  /**
   * Deletes the rows matching `query.filter` that the delete rule lets the caller delete, in one
   * statement (contract §18); references follow their on_delete. With `dry_run=true` only counts
   * them. Returns the count. Throws VALIDATION_FILTER, FORBIDDEN, CONFLICT_REFERENCE.
   */
  async deleteWhere(context: RowContext, tableName: string, query: FilterQuery): Promise<number> {
    const { db, table, tables } = await this.open(context, tableName);
    const now = isoNow(this.clock);
    const target = parseFilterTarget(table, query, { caller: context.caller, now, tables });
    const where = sql.and(target.where, ruleCondition(table, 'delete', context.caller, now));
    if (target.dryRun) return countWithinBound(db, table, where);
    try {
      return await this.writeByFilterLogged(context.projectId, db, async (tx) => {
        if (!table.definition.auth_table) return writeByFilter(tx, table, planFilterDelete(table, where), now);
        // Users: each deleted one's sessions and mailed links end with it, before the delete (its
        // event-log numbers are taken last). The matching users are read (within the bound) and
        // locked, and the delete is kept to them: exactly those are forgotten, whatever other
        // writers commit meanwhile (PostgreSQL).
        await countWithinBound(tx, table, where);
        const users = await tx.all({ kind: 'select', table: table.name, columns: ID_COLUMN, where, forUpdate: true });
        await this.credentials.forgetUsers(
          tx,
          users.map(({ id }) => String(id)),
        );
        const chosen: Expr = {
          kind: 'in',
          expr: sql.column('id'),
          values: users.map(({ id }) => sql.value(id, 'text')),
        };
        return writeByFilter(tx, table, planFilterDelete(table, sql.and(where, chosen)), now);
      });
    } catch (error) {
      throw translateFilterDeleteError(error, table, tables);
    }
  }

  private async open(context: RowContext, tableName: string): Promise<OpenedTable> {
    return openedTable(await this.schemas.schema(context.projectId), tableName);
  }

  /**
   * `open` without a promise when the schema cache is known current
   * (SQLite); undefined otherwise. Reads use it: no microtask turn.
   */
  private openNow(context: RowContext, tableName: string): OpenedTable | undefined {
    const schema = this.schemas.peek(context.projectId);
    return schema && openedTable(schema, tableName);
  }

  /** Creates rows; returns them with the JSON text of each (JSON.stringify's, as the event log stored it). */
  private async insert(
    context: RowContext,
    tableName: string,
    bodies: readonly unknown[],
    options: CreateOptions,
  ): Promise<{ rows: Row[]; texts: string[] }> {
    const { db, table } = await this.open(context, tableName);
    const plan = await this.planCreate(context, table, bodies, options);
    let texts: string[] = [];
    const rows = await this.writeCreateLogged(context, db, plan, (rows) => {
      texts = rows.map((record) => JSON.stringify(record));
      return texts;
    });
    return { rows, texts };
  }

  /**
   * The write phase of a create: writes the planned rows in one transaction that logs their
   * realtime events. Throws FORBIDDEN (create rule), CONFLICT_UNIQUE, CONFLICT_REFERENCE, VALIDATION_FAILED.
   */
  async writeCreate(context: RowContext, db: Database, plan: InsertPlan): Promise<Row[]> {
    return this.writeCreateLogged(context, db, plan, () => undefined);
  }

  /**
   * writeCreate, with `textsOf` giving the JSON text of the written rows for the log when the caller builds it anyway.
   */
  private async writeCreateLogged(
    context: RowContext,
    db: Database,
    plan: InsertPlan,
    textsOf: (rows: Row[]) => readonly string[] | undefined,
  ): Promise<Row[]> {
    const { table } = plan;
    const changes = (rows: Row[]): RowChange[] => {
      const texts = textsOf(rows);
      return rows.map((record, i) => ({
        table: table.name,
        action: 'create' as const,
        record,
        ...(texts && { recordJson: texts[i]! }),
      }));
    };
    const write = (options: WriteRowsOptions) =>
      this.writeLogged(context.projectId, db, (tx) => writeRows(tx, plan, options), changes, plan.now);
    try {
      if (!canWriteTogether(plan)) return await write({});
      try {
        return await write({ together: true });
      } catch (error) {
        if (!(error instanceof RowsRefusedTogether)) throw error;
      }
      // Rolled back: row by row, the write fails at the same row, with the error that names it.
      return await write({});
    } catch (error) {
      throw translateWriteError(error, table.name);
    }
  }

  /** Runs a write by filter in a transaction; after commit tells the feed where the log got to. Returns the count. */
  private async writeByFilterLogged(
    projectId: string,
    db: Database,
    work: (tx: Executor) => Promise<LoggedWrite>,
  ): Promise<number> {
    const { count, lastSeq } = await db.transaction(work);
    if (lastSeq !== undefined) this.feed?.loggedThrough(projectId, lastSeq);
    return count;
  }

  /**
   * Runs `work` in one transaction that also appends its row changes to the realtime event
   * log (last, so numbers are taken just before the commit), then tells the feed.
   */
  private async writeLogged<T>(
    projectId: string,
    db: Database,
    work: (tx: Executor) => Promise<T>,
    changes: (result: T) => RowChange[],
    now: string,
  ): Promise<T> {
    let events: LoggedEvent[] = [];
    const result = await db.transaction(async (tx) => {
      const value = await work(tx);
      events = await appendRowChanges(tx, changes(value), now);
      return value;
    });
    this.feed?.committed(projectId, events);
    return result;
  }

  /**
   * The plan phase of a create: validates every row, prepares credentials, compiles the create
   * rule; writes nothing. Throws FORBIDDEN, VALIDATION_*.
   */
  async planCreate(
    context: RowContext,
    table: CompiledTable,
    bodies: readonly unknown[],
    { bulk, byAuthFlow = false }: CreateOptions,
  ): Promise<InsertPlan> {
    const now = isoNow(this.clock);
    // Parse and plan every row before writing any: a bad row means nothing is written.
    checkCreateNotLocked(table, context, now);
    const prepared: { values: RowValues; condition: Expr | undefined }[] = [];
    for (const [index, body] of bodies.entries()) {
      if (!byAuthFlow) refuseUserCreation(table, context.caller);
      const validated = table.validators().create(body, bulk ? index : undefined);
      const values = await this.prepareCredentials(context, table, validated, {
        creating: true,
        ...(bulk && { index }),
      });
      // @request.body is what the client sent (normalised): defaults and password hashes are not in it.
      // Only a rule expression reads it (an open or locked rule does not): not built per row otherwise.
      const sent =
        table.rules.create.kind === 'expression'
          ? Object.fromEntries(
              Object.keys(body as object).map((name) => [
                name,
                name === 'password' ? validated.password : values[name],
              ]),
            )
          : undefined;
      prepared.push({ values, condition: ruleCondition(table, 'create', context.caller, now, sent) });
    }
    return { table, now, bulk, rows: prepared };
  }

  /**
   * The credentials of an auth-table row prepared by the port (lower-cased
   * email, hashed password); other tables' values as they are.
   */
  private prepareCredentials(
    context: RowContext,
    table: CompiledTable,
    values: RowValues,
    write: { creating: boolean; index?: number },
  ): Promise<RowValues> {
    if (!table.definition.auth_table) return Promise.resolve(values);
    return this.credentials.prepare(values, { ...write, minPasswordLength: context.minPasswordLength });
  }
}

/** The rows of a bulk body; throws VALIDATION_FAILED unless it is an array of 1 to MAX_BULK_ROWS items. */
function bulkBodies(body: unknown): unknown[] {
  if (!Array.isArray(body)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'The bulk body must be a JSON array of row objects.',
      suggestion: 'Send [{...}, {...}].',
    });
  }
  if (body.length === 0 || body.length > MAX_BULK_ROWS) {
    throw new AppError('VALIDATION_FAILED', {
      message: `A bulk request holds 1 to ${MAX_BULK_ROWS} rows; this one has ${body.length}.`,
      suggestion: `Split the rows into requests of at most ${MAX_BULK_ROWS}.`,
    });
  }
  return body;
}

/** A table ready for a row operation: its database, the compiled table, and every table of the project. */
interface OpenedTable {
  readonly db: ProjectDatabase;
  readonly table: CompiledTable;
  readonly tables: ReadonlyMap<string, CompiledTable>;
}

/** The table of `schema` named `tableName`; throws TABLE_NOT_FOUND. */
function openedTable(schema: ProjectSchema, tableName: string): OpenedTable {
  const table = schema.tables.get(tableName);
  if (!table) throw tableNotFound(tableName, { tables: schema.tables.keys() });
  return { db: schema.db, table, tables: schema.tables };
}

/** Throws FORBIDDEN when the create rule is locked for the caller (the empty body lets @request.body rules compile). */
function checkCreateNotLocked(table: CompiledTable, context: RowContext, now: string): void {
  ruleCondition(table, 'create', context.caller, now, {});
}

/** Serialisers of expanded pages, per table and schema version (the compiled table), by `expand` text. */
const expandedJsonCache = new WeakMap<CompiledTable, Map<string, RowJson>>();
/** Distinct `expand` texts kept per table; past it the cache starts over (clients use a few). */
const EXPANDED_JSON_LIMIT = 64;

function expandedJson(
  table: CompiledTable,
  text: string,
  nodes: readonly ExpandNode[],
  tables: ReadonlyMap<string, CompiledTable>,
): RowJson {
  let byText = expandedJsonCache.get(table);
  if (!byText) {
    byText = new Map();
    expandedJsonCache.set(table, byText);
  }
  let json = byText.get(text);
  if (!json) {
    if (byText.size >= EXPANDED_JSON_LIMIT) byText.clear();
    json = buildExpandedRowJson(table.readable, nodes, (name) => tables.get(name)!.readable);
    byText.set(text, json);
  }
  return json;
}
