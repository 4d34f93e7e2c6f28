/**
 * Transactional batches (POST /p/{id}/api/batch, contract §18): creates, updates and deletes
 * over several tables in one transaction, each under its own table's rules. A pipeline:
 * parse the shape (batch-request.ts) → plan every operation (tables, rules, validation,
 * password hashing; nothing written) → run them in order in one transaction that also logs
 * their realtime events → tell the feed after the commit. The first failure rolls back all and
 * is answered with its own status and code, its message prefixed "operations[i]: ".
 */
import { appendRowChanges, type ChangeFeed, type LoggedEvent, type RowChange } from '../changes/event-log.js';
import { AppError } from '../errors/app-error.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { sql, type Expr } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';
import { operationPrefix, parseBatchRequest, type BatchOperation } from './batch-request.js';
import type { CompiledTable } from './compiled-table.js';
import type { CredentialsPort } from './credentials-port.js';
import { rowNotFound, tableNotFound } from './not-found.js';
import { checkProtectedFields, ruleCondition } from './row-access.js';
import { writeRows, type InsertPlan } from './row-insert.js';
import type { RowContext } from './row-service.js';
import { planUpdate, writeUpdate, type UpdatePlan } from './row-update.js';
import type { ProjectSchema, SchemaService } from './schema-service.js';
import { translateDeleteError, translateRowWriteError, translateWriteError } from './write-errors.js';

/** One operation's answer: the status and body its single-row endpoint would answer (DELETE: 204, null). */
export interface BatchResult {
  readonly status: 200 | 201 | 204;
  readonly body: { readonly data: Row } | null;
}

/** The plan phase of creates, which the row service owns (validation, credentials, the create rule). */
export interface CreatePlanner {
  planCreate(
    context: RowContext,
    table: CompiledTable,
    bodies: readonly unknown[],
    options: { bulk: boolean },
  ): Promise<InsertPlan>;
}

/** What a batch runner is built from. */
export interface RowBatchDeps {
  readonly schemas: SchemaService;
  /** Plans each create exactly as POST /api/{table} does. */
  readonly creates: CreatePlanner;
  /** Prepares auth-table credentials of updates and voids them on deletes. */
  readonly credentials: CredentialsPort;
  readonly clock: Clock;
  /** Told about the batch's realtime events once it committed. */
  readonly feed?: ChangeFeed;
}

/** An operation ready to run: its table and what it writes. */
type PlannedOperation =
  | { readonly index: number; readonly kind: 'create'; readonly table: CompiledTable; readonly plan: InsertPlan }
  | { readonly index: number; readonly kind: 'update'; readonly table: CompiledTable; readonly plan: UpdatePlan }
  | {
      readonly index: number;
      readonly kind: 'delete';
      readonly table: CompiledTable;
      readonly rowId: string;
      readonly where: Expr;
    };

/** An operation that failed inside the transaction: carried out of it, translated after the rollback. */
class OperationFailure extends Error {
  constructor(
    readonly operation: PlannedOperation,
    readonly error: unknown,
  ) {
    super(`operations[${operation.index}] failed`, { cause: error });
  }
}

/** Runs batches of row writes. */
export class RowBatch {
  constructor(private readonly deps: RowBatchDeps) {}

  /**
   * Runs the batch `body` for `context`: every operation or none. Throws VALIDATION_FAILED for
   * a malformed batch, else the first failing operation's own error (TABLE_NOT_FOUND,
   * ROW_NOT_FOUND, FORBIDDEN, VALIDATION_*, CONFLICT_*) with its message prefixed "operations[i]: ".
   */
  async run(context: RowContext, body: unknown): Promise<BatchResult[]> {
    const operations = parseBatchRequest(body);
    const schema = await this.deps.schemas.schema(context.projectId);
    const now = isoNow(this.deps.clock);
    const planned: PlannedOperation[] = [];
    for (const operation of operations) {
      try {
        planned.push(await this.plan(context, schema, operation, now));
      } catch (error) {
        throw withIndex(error, operation.index);
      }
    }
    let events: LoggedEvent[] = [];
    let results: BatchResult[];
    try {
      results = await schema.db.transaction(async (tx) => {
        const changes: RowChange[] = [];
        const answers: BatchResult[] = [];
        for (const operation of planned) {
          try {
            answers.push(await this.write(tx, operation, changes));
          } catch (error) {
            throw new OperationFailure(operation, error);
          }
        }
        events = await appendRowChanges(tx, changes, now);
        return answers;
      });
    } catch (failure) {
      if (!(failure instanceof OperationFailure)) throw failure;
      throw withIndex(await translate(failure, schema), failure.operation.index);
    }
    this.deps.feed?.committed(context.projectId, events);
    return results;
  }

  /** The plan phase of one operation, as its single-row endpoint plans it; writes nothing. */
  private async plan(
    context: RowContext,
    schema: ProjectSchema,
    operation: BatchOperation,
    now: string,
  ): Promise<PlannedOperation> {
    const { index } = operation;
    const table = schema.tables.get(operation.table);
    if (!table) throw tableNotFound(operation.table, { tables: schema.tables.keys() });
    switch (operation.method) {
      case 'POST': {
        const plan = await this.deps.creates.planCreate(context, table, [operation.body], { bulk: false });
        return { index, kind: 'create', table, plan };
      }
      case 'PATCH': {
        checkProtectedFields(table, context.caller, operation.body);
        const validated = table.validators().update(operation.body);
        const values = table.definition.auth_table
          ? await this.deps.credentials.prepare(validated, {
              creating: false,
              minPasswordLength: context.minPasswordLength,
            })
          : validated;
        const condition = ruleCondition(table, 'update', context.caller, now, values);
        return { index, kind: 'update', table, plan: planUpdate(table, operation.id, values, condition, now) };
      }
      case 'DELETE': {
        const condition = ruleCondition(table, 'delete', context.caller, now);
        return {
          index,
          kind: 'delete',
          table,
          rowId: operation.id,
          where: sql.and(sql.eq('id', operation.id), condition),
        };
      }
    }
  }

  /** The write phase of one operation with `tx`; adds its realtime changes to `changes`. */
  private async write(tx: Executor, operation: PlannedOperation, changes: RowChange[]): Promise<BatchResult> {
    const { table } = operation;
    switch (operation.kind) {
      case 'create': {
        const [row] = await writeRows(tx, operation.plan);
        changes.push({ table: table.name, action: 'create', record: row! });
        return { status: 201, body: { data: row! } };
      }
      case 'update': {
        const row = await writeUpdate(tx, operation.plan, this.deps.credentials);
        changes.push({ table: table.name, action: 'update', record: row });
        return { status: 200, body: { data: row } };
      }
      case 'delete': {
        const deleted = await tx.all({
          kind: 'delete',
          table: table.name,
          where: operation.where,
          returning: table.readable,
        });
        if (deleted.length === 0) throw rowNotFound(table.name, operation.rowId);
        if (table.definition.auth_table) await this.deps.credentials.forgetUser(tx, operation.rowId);
        for (const record of deleted) changes.push({ table: table.name, action: 'delete', record });
        return { status: 204, body: null };
      }
    }
  }
}

/**
 * The catalogue error of a failed write, as its single-row endpoint translates it. Storage is
 * read after the rollback (which column a broken reference names), as the single-row update
 * and delete do.
 */
async function translate(failure: OperationFailure, schema: ProjectSchema): Promise<unknown> {
  const { operation, error } = failure;
  switch (operation.kind) {
    case 'create':
      return translateWriteError(error, operation.table.name);
    case 'update':
      return translateRowWriteError(error, schema.db, operation.table, operation.plan.values);
    case 'delete':
      return translateDeleteError(error, schema.db, schema.tables.values(), operation.table, operation.rowId);
  }
}

/** `error` with "operations[i]: " before its message when it is a client error; other errors as they are. */
function withIndex(error: unknown, index: number): unknown {
  if (!(error instanceof AppError)) return error;
  return new AppError(error.code, {
    message: `${operationPrefix(index)}${error.message}`,
    suggestion: error.suggestion,
    headers: error.headers,
    ...(error.field !== undefined && { field: error.field }),
    cause: error,
  });
}
