/**
 * One PostgreSQL schema (the system schema, or one project's) behind the storage ports. All
 * schemas share the engine's pool: statements name their tables schema-qualified (see
 * `pg-compiler.ts`), so no connection carries a per-schema `search_path`. A transaction
 * holds one pooled client from BEGIN to COMMIT/ROLLBACK.
 */
import type pg from 'pg';
import {
  resultColumns,
  type ColumnRef,
  type DeleteStatement,
  type InsertStatement,
  type SelectStatement,
  type Statement,
  type UpdateStatement,
} from '../../query/sql-tree.js';
import {
  StoreError,
  type Executor,
  type LoggedWrite,
  type ProjectDatabase,
  type Row,
  type RowLog,
  type SchemaExecutor,
  type TableChange,
} from '../types.js';
import type { ChangeCounters } from './pg-change-counters.js';
import type { ChangeListener } from './pg-change-listener.js';
import { decodePgValue, PgCompiler } from './pg-compiler.js';
import { applyPgTableChange, type QueryRunner } from './pg-ddl.js';
import { isConnectionError, translatePgError } from './pg-errors.js';
import { lockSchema } from './pg-migrations.js';
import { checkOut } from './pg-pool.js';
import { preparedName } from './pg-prepared.js';

type Readable = SelectStatement | InsertStatement | UpdateStatement | DeleteStatement;
type Write = InsertStatement | UpdateStatement | DeleteStatement;

// PostgreSQL binds at most 65535 parameters per statement; big multi-row inserts are split.
const MAX_PARAMS = 30_000;

function decodeRow(raw: Record<string, unknown>, columns: readonly ColumnRef[]): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = decodePgValue(raw[column.name], column.type);
  return row;
}

/** Splits a multi-row insert so that no part binds more than MAX_PARAMS values. */
function chunks(statement: InsertStatement): InsertStatement[] {
  const perRow = Math.max(1, statement.columns.length);
  const rowsPerChunk = Math.max(1, Math.floor(MAX_PARAMS / perRow));
  if (statement.rows.length <= rowsPerChunk) return [statement];
  const parts: InsertStatement[] = [];
  for (let i = 0; i < statement.rows.length; i += rowsPerChunk)
    parts.push({ ...statement, rows: statement.rows.slice(i, i + rowsPerChunk) });
  return parts;
}

/** Runs compiled statements on a pool or on one client, translating errors. */
class PgExecutor implements Executor {
  /** Set when a write touched a table whose changes other processes must learn about. */
  touchedWatched = false;

  /**
   * `client`: the connection `runner` is (a transaction's), on which kept insert texts run as
   * prepared statements (pg-prepared.ts); absent for the pool, where each statement may take
   * another connection.
   */
  constructor(
    protected readonly runner: QueryRunner,
    protected readonly compiler: PgCompiler,
    private readonly watched: ReadonlySet<string>,
    private readonly client?: pg.ClientBase,
  ) {}

  async all(statement: Readable): Promise<Row[]> {
    if (statement.kind === 'insert' && chunks(statement).length > 1) {
      const out: Row[] = [];
      for (const part of chunks(statement)) out.push(...(await this.all(part)));
      return out;
    }
    const result = await this.query(statement);
    const columns = resultColumns(statement);
    return (result.rows as Record<string, unknown>[]).map((raw) => decodeRow(raw, columns));
  }

  async first(statement: Readable): Promise<Row | undefined> {
    return (await this.all(statement))[0];
  }

  async count(statement: Parameters<Executor['count']>[0]): Promise<number> {
    const result = await this.query(statement);
    return Number((result.rows[0] as { n: unknown } | undefined)?.n ?? 0);
  }

  async run(statement: Write): Promise<number> {
    if (statement.kind === 'insert' && chunks(statement).length > 1) {
      let changed = 0;
      for (const part of chunks(statement)) changed += await this.run(part);
      return changed;
    }
    const result = await this.query({ ...statement, returning: undefined });
    return result.rowCount ?? 0;
  }

  async writeLoggingRows(write: UpdateStatement | DeleteStatement, log: RowLog): Promise<LoggedWrite> {
    try {
      const { sql, params } = this.compiler.compileLoggingWrite(write, log);
      const result = await this.runner.query(sql, params);
      if (this.watched.has(write.table)) this.touchedWatched = true;
      const row = result.rows[0] as { n: unknown; last: unknown } | undefined;
      const count = Number(row?.n ?? 0);
      return { count, lastSeq: count === 0 ? undefined : Number(row?.last) };
    } catch (error) {
      throw translatePgError(error);
    }
  }

  /** A fixed statement of this engine's own (realtime horizons), with bound parameters. */
  async raw(text: string, params: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.runner.query(text, params);
    } catch (error) {
      throw translatePgError(error);
    }
  }

  private async query(statement: Statement): Promise<pg.QueryResult> {
    try {
      const { sql, params, textNumber } = this.compiler.compile(statement);
      const name =
        this.client && textNumber !== undefined ? preparedName(this.client, textNumber, params.length) : undefined;
      const result =
        name === undefined
          ? await this.runner.query(sql, params)
          : await this.client!.query({ name, text: sql, values: params });
      if (statement.kind !== 'select' && statement.kind !== 'count' && this.watched.has(statement.table))
        this.touchedWatched = true;
      return result;
    } catch (error) {
      throw translatePgError(error);
    }
  }
}

class PgSchemaExecutor extends PgExecutor implements SchemaExecutor {
  async changeTable(change: TableChange): Promise<void> {
    try {
      await applyPgTableChange(this.runner, this.compiler.schema, change);
    } catch (error) {
      throw translatePgError(error);
    }
  }
}

/** Which kind of transaction `inTransaction` runs. */
interface TransactionKind {
  /** Takes the schema's advisory lock first, and announces the change after commit. */
  readonly schemaChange: boolean;
}

// The two kinds, shared: a data transaction runs per write request and allocates no options.
const DATA_TRANSACTION: TransactionKind = Object.freeze({ schemaChange: false });
const SCHEMA_CHANGE: TransactionKind = Object.freeze({ schemaChange: true });

/** What a database shares with its engine. */
export interface PgDatabaseDeps {
  readonly pool: pg.Pool;
  readonly listener: ChangeListener;
  /** The engine's reader of committed change counters, shared by all its schemas. */
  readonly counters: ChangeCounters;
  /** Tables of this schema whose writes other processes' caches depend on. */
  readonly watched: ReadonlySet<string>;
}

/** A schema implementing Database, ProjectDatabase and SchemaExecutor. */
export class PgDatabase implements ProjectDatabase {
  private readonly compiler: PgCompiler;
  private seen = { counter: -1, epoch: -1, version: 0 };

  constructor(
    readonly schema: string,
    private readonly deps: PgDatabaseDeps,
  ) {
    this.compiler = new PgCompiler(schema);
  }

  all(statement: Readable): Promise<Row[]> {
    return this.direct((executor) => executor.all(statement));
  }

  first(statement: Readable): Promise<Row | undefined> {
    return this.direct((executor) => executor.first(statement));
  }

  count(statement: Parameters<Executor['count']>[0]): Promise<number> {
    return this.direct((executor) => executor.count(statement));
  }

  run(statement: Write): Promise<number> {
    return this.direct((executor) => executor.run(statement));
  }

  writeLoggingRows(write: UpdateStatement | DeleteStatement, log: RowLog): Promise<LoggedWrite> {
    return this.direct((executor) => executor.writeLoggingRows(write, log));
  }

  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.inTransaction(
      DATA_TRANSACTION,
      (client) => new PgExecutor(client, this.compiler, this.deps.watched, client),
      work,
    );
  }

  changeSchema<T>(work: (tx: SchemaExecutor) => Promise<T>): Promise<T> {
    return this.inTransaction<T, PgSchemaExecutor>(
      SCHEMA_CHANGE,
      (client) => new PgSchemaExecutor(client, this.compiler, this.deps.watched, client),
      work,
    );
  }

  /**
   * Database: past every transaction in progress now. A new transaction id: ids are handed out
   * in increasing order, so it is above every id given so far. A snapshot's xmax is not: it is
   * one past the last transaction to *finish*, and a transaction that got its id after that one
   * (and took a lower event number) would be above it and counted as settled while it runs.
   * The statement's own transaction writes nothing, so its commit waits for no WAL flush.
   */
  async transactionHorizon(): Promise<string> {
    const result = await this.direct((executor) => executor.raw('SELECT pg_current_xact_id()::text AS mark', []));
    return String(result.rows[0]!.mark);
  }

  /** Database: true once no transaction older than `horizon` is still in progress. */
  async hasSettled(horizon: string): Promise<boolean> {
    const result = await this.direct((executor) =>
      executor.raw('SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS settled', [horizon]),
    );
    return result.rows[0]!.settled === true;
  }

  /**
   * The schema's committed change counter, read from the database (in a read shared by the
   * asks of one event-loop turn, and by the other schemas a request needs: `pg-change-counters.ts`).
   * Notifications alone could reach this process after its next request. The number also
   * changes once after a connection failure, so caches never outlive an outage.
   */
  async externalChangeVersion(): Promise<number> {
    let counter: number;
    try {
      counter = await this.deps.counters.read(this.schema);
    } catch (error) {
      throw translatePgError(error);
    }
    // A new number whenever the counter moved or a connection failed since the last read (ChangeListener.epoch).
    const epoch = this.deps.listener.epoch;
    if (counter !== this.seen.counter || epoch !== this.seen.epoch)
      this.seen = { counter, epoch, version: this.seen.version + 1 };
    return this.seen.version;
  }

  /** A single statement on the pool (its own implicit transaction). */
  private async direct<T>(use: (executor: PgExecutor) => Promise<T>): Promise<T> {
    const executor = new PgExecutor(this.deps.pool, this.compiler, this.deps.watched);
    const result = await use(executor);
    if (executor.touchedWatched) await this.announce();
    return result;
  }

  private async inTransaction<T, E extends PgExecutor>(
    { schemaChange }: TransactionKind,
    make: (client: pg.PoolClient) => E,
    work: (tx: E) => Promise<T>,
  ): Promise<T> {
    const { client, release } = await checkOut(this.deps.pool);
    let broken: unknown;
    const executor = make(client);
    try {
      // Not awaited: the pooled clients pipeline (pg-pool.ts), so BEGIN is sent with the first
      // statement of `work` instead of costing a round trip of its own. PostgreSQL runs them in
      // order; BEGIN fails only with its connection, and then so does every statement behind it.
      const begun = client.query('BEGIN');
      begun.catch(() => undefined);
      // Schema changes of one project run one at a time across every process, as on SQLite.
      if (schemaChange) await lockSchema(client, this.schema);
      const result = await work(executor);
      await begun;
      await client.query('COMMIT');
      if (executor.touchedWatched || schemaChange) await this.announce();
      return result;
    } catch (error) {
      if (isConnectionError(error) || (error instanceof StoreError && error.kind === 'unavailable')) broken = error;
      else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
      throw translatePgError(error);
    } finally {
      // A client whose connection failed is destroyed rather than returned to the pool.
      release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Waits until the change notification of a committed write has gone round (see ChangeListener.sync). */
  private async announce(): Promise<void> {
    await this.deps.listener.sync(async (channel, payload) => {
      await this.deps.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    });
  }
}
