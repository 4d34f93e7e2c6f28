/**
 * One SQLite database behind the storage ports. better-sqlite3 is synchronous and one
 * connection is shared by every request, so an open transaction holds a lock that other
 * callers wait for: otherwise their statements would land inside it across an `await`.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { ColumnRef, Statement } from '../../query/sql-tree.js';
import type { Executor, ProjectDatabase, Row, SchemaExecutor, TableChange } from '../types.js';
import { compileStatement, decodeSqliteValue } from './sqlite-compiler.js';
import { applyTableChange } from './sqlite-ddl.js';
import { translateSqliteError } from './sqlite-errors.js';
import { echoedInsertRow } from './sqlite-insert-echo.js';
import { WalSync } from './wal-sync.js';

const STATEMENT_CACHE_SIZE = 500;

export interface SqliteOptions {
  readonly synchronous: 'full' | 'normal';
}

/**
 * Opens a file with Rowbase's pragmas: WAL, foreign keys, busy timeout, and `synchronous=NORMAL`:
 * with `synchronous: 'full'` the SqliteDatabase syncs the WAL itself after each commit, off the
 * event loop (see wal-sync.ts), before the caller answers.
 */
export function openSqliteFile(file: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

function decodeRow(raw: Record<string, unknown>, columns: readonly ColumnRef[]): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = decodeSqliteValue(raw[column.name], column.type);
  return row;
}

function resultColumns(statement: Statement): readonly ColumnRef[] {
  if (statement.kind === 'select') return statement.columns;
  if (statement.kind === 'count') return [];
  return statement.returning ?? [];
}

/** A better-sqlite3 connection implementing Database, ProjectDatabase and SchemaExecutor. */
export class SqliteDatabase implements ProjectDatabase {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  /** Whether each table is STRICT (see echoedInsertRow); forgotten with the statements on DDL. */
  private readonly strictTables = new Map<string, boolean>();
  private handle: BetterSqlite3.Database | null = null;
  private dataVersion: BetterSqlite3.Statement | null = null;
  private dataVersionOffset = 0;
  private versionThisTurn: number | undefined;
  private lock: Promise<void> | null = null;
  private readonly direct: SchemaExecutor;
  /** Set while a connection is open when commits must reach the disk before they are acknowledged. */
  private walSync: WalSync | undefined;
  /** Write statements run so far; a transaction that moved it waits for the WAL sync. */
  private writes = 0;
  private walSyncs = 0;

  /**
   * `open` makes a new connection; it is called lazily and again after `release()`, so a
   * pool may close idle handles while callers keep this object. `onOpen` lets the pool
   * count open handles. `synchronous: 'full'` makes every write wait for its commit to be on disk.
   */
  constructor(
    private readonly open: () => BetterSqlite3.Database,
    private readonly onOpen: (db: SqliteDatabase) => void = () => undefined,
    private readonly options: SqliteOptions = { synchronous: 'full' },
  ) {
    this.direct = {
      all: async (s) => this.allNow(s),
      first: async (s) => this.firstNow(s),
      count: async (s) => this.countNow(s),
      run: async (s) => this.runNow(s),
      changeTable: async (change) => this.changeTableNow(change),
    };
  }

  /** The open connection, opened on first use. */
  get connection(): BetterSqlite3.Database {
    if (!this.handle) {
      this.handle = this.open();
      this.dataVersion = this.handle.prepare('PRAGMA data_version').pluck();
      if (this.options.synchronous === 'full') this.walSync = new WalSync(this.handle.name, () => this.walSyncs++);
      this.onOpen(this);
    }
    return this.handle;
  }

  private ensureOpen(): void {
    if (!this.handle) void this.connection;
  }

  /** True while a transaction holds the connection. */
  get busy(): boolean {
    return this.lock !== null;
  }

  /** WAL syncs finished so far for acknowledged commits (0 with `synchronous: 'normal'`); for diagnostics and tests. */
  get walSyncCount(): number {
    return this.walSyncs;
  }

  /** True while a connection is open. */
  get isOpen(): boolean {
    return this.handle !== null;
  }

  async all(statement: Parameters<Executor['all']>[0]): Promise<Row[]> {
    if (this.lock) await this.whenIdle();
    return statement.kind === 'select' ? this.allNow(statement) : this.durably(() => this.allNow(statement));
  }

  async first(statement: Parameters<Executor['first']>[0]): Promise<Row | undefined> {
    if (this.lock) await this.whenIdle();
    return statement.kind === 'select' ? this.firstNow(statement) : this.durably(() => this.firstNow(statement));
  }

  async count(statement: Parameters<Executor['count']>[0]): Promise<number> {
    if (this.lock) await this.whenIdle();
    return this.countNow(statement);
  }

  async run(statement: Parameters<Executor['run']>[0]): Promise<number> {
    if (this.lock) await this.whenIdle();
    return this.durably(() => this.runNow(statement));
  }

  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const { result, wrote } = await this.refusedDurably(() => this.exclusive(false, () => work(this.direct)));
    if (wrote) await this.walSync?.durable();
    return result;
  }

  async changeSchema<T>(work: (tx: SchemaExecutor) => Promise<T>): Promise<T> {
    const { result } = await this.refusedDurably(() => this.exclusive(true, () => work(this.direct)));
    await this.walSync?.durable();
    return result;
  }

  /** Resolves once every commit made so far is on disk (a no-op with `synchronous: 'normal'`). */
  async waitDurable(): Promise<void> {
    await this.walSync?.durable();
  }

  /** Runs a write outside a transaction (SQLite commits it at once) and waits until it is on disk. */
  private async durably<T>(write: () => T): Promise<T> {
    const result = await this.refusedDurably(async () => write());
    await this.walSync?.durable();
    return result;
  }

  /**
   * Runs `work`; when it fails, waits for the WAL sync before passing the error on: a refusal
   * (a unique or foreign-key conflict, say) may rest on another request's commit that is not on
   * disk yet, and must not be answered before that commit could be.
   */
  private async refusedDurably<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.walSync?.durable().catch(() => undefined);
      throw error;
    }
  }

  externalChangeVersion(): number {
    // Read at most once per event-loop turn: several caches ask on every request, and another
    // process's commit is seen on the next turn at the latest.
    if (this.versionThisTurn !== undefined) return this.versionThisTurn;
    this.ensureOpen();
    // data_version restarts with each connection; the offset keeps the number moving so a
    // reopened handle never looks like "no change" to a cache.
    this.versionThisTurn = this.dataVersionOffset + (this.dataVersion!.get() as number);
    setImmediate(() => (this.versionThisTurn = undefined));
    return this.versionThisTurn;
  }

  /** Closes the connection if idle; the next use reopens it. Returns false when busy (a transaction, or writes waiting for their sync). */
  release(): boolean {
    const inUse = this.lock !== null || (this.walSync?.busy ?? false);
    if (inUse || !this.handle) return !inUse;
    this.statements.clear();
    this.strictTables.clear();
    this.dataVersionOffset += 1_000_000;
    this.versionThisTurn = undefined;
    this.handle.close();
    this.handle = null;
    this.dataVersion = null;
    this.forgetWal();
    return true;
  }

  /** Closes the connection for good (the caller makes sure no transaction is open). */
  close(): void {
    this.statements.clear();
    this.strictTables.clear();
    this.handle?.close();
    this.handle = null;
    this.forgetWal();
  }

  /** Closing the connection checkpoints the WAL into the (synced) database file; the next open starts a new WalSync. */
  private forgetWal(): void {
    this.walSync?.reset();
    this.walSync = undefined;
  }

  private async whenIdle(): Promise<void> {
    while (this.lock) await this.lock;
  }

  /** Runs `work` in a transaction holding the lock; `wrote` says whether it ran a write statement. */
  private async exclusive<T>(schema: boolean, work: () => Promise<T>): Promise<{ result: T; wrote: boolean }> {
    // Check and take the lock with no await in between: two transactions started in the same
    // tick would otherwise both see it free and the second BEGIN would fail.
    while (this.lock) await this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    const db = this.connection;
    // Table rebuilds must run with foreign keys off (else DROP TABLE cascades); the pragma
    // is a no-op inside a transaction, so it is set before BEGIN and checked before COMMIT.
    if (schema) db.pragma('foreign_keys = OFF');
    try {
      db.exec('BEGIN IMMEDIATE');
      const writesBefore = this.writes;
      try {
        const result = await work();
        if (schema) {
          const violations = db.pragma('foreign_key_check') as { table: string }[];
          if (violations.length > 0) {
            throw translateSqliteError(Object.assign(new Error(`FOREIGN KEY constraint failed: ${violations[0]!.table}`), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
          }
        }
        db.exec('COMMIT');
        return { result, wrote: this.writes !== writesBefore };
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw translateSqliteError(error);
      }
    } finally {
      if (schema) db.pragma('foreign_keys = ON');
      this.lock = null;
      release();
    }
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement) return statement;
    statement = this.connection.prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      // Drop the oldest entry; Map keeps insertion order.
      this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, statement);
    return statement;
  }

  private allNow(statement: Parameters<Executor['all']>[0]): Row[] {
    if (statement.kind !== 'select') this.writes++;
    try {
      const columns = resultColumns(statement);
      if (statement.kind === 'insert' && statement.rows.length > 1) {
        // One prepared single-row statement per row: no variable limit, and fast in a transaction.
        const out: Row[] = [];
        for (const row of statement.rows) out.push(...this.allNow({ ...statement, rows: [row] }));
        return out;
      }
      if (statement.kind === 'insert') {
        const echoed = echoedInsertRow(statement, (table) => this.isStrict(table));
        if (echoed) {
          this.runNow(statement);
          return [echoed];
        }
      }
      const { sql, params } = compileStatement(statement);
      const prepared = this.prepare(sql);
      if (!prepared.reader) {
        prepared.run(...(params as never[]));
        return [];
      }
      return (prepared.all(...(params as never[])) as Record<string, unknown>[]).map((raw) => decodeRow(raw, columns));
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private isStrict(table: string): boolean {
    let strict = this.strictTables.get(table);
    if (strict === undefined) {
      strict = this.connection.prepare('SELECT "strict" FROM pragma_table_list WHERE "schema" = \'main\' AND "name" = ?').pluck().get(table) === 1;
      this.strictTables.set(table, strict);
    }
    return strict;
  }

  private firstNow(statement: Parameters<Executor['first']>[0]): Row | undefined {
    // A select needs one row: step once instead of collecting them all (writes take the general path).
    if (statement.kind !== 'select') return this.allNow(statement)[0];
    try {
      const { sql, params } = compileStatement(statement);
      const raw = this.prepare(sql).get(...(params as never[])) as Record<string, unknown> | undefined;
      return raw === undefined ? undefined : decodeRow(raw, statement.columns);
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private countNow(statement: Parameters<Executor['count']>[0]): number {
    try {
      const { sql, params } = compileStatement(statement);
      return (this.prepare(sql).pluck().get(...(params as never[])) as number) ?? 0;
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private runNow(statement: Parameters<Executor['run']>[0]): number {
    this.writes++;
    try {
      if (statement.kind === 'insert' && statement.rows.length > 1) {
        let changes = 0;
        for (const row of statement.rows) changes += this.runNow({ ...statement, rows: [row], returning: undefined });
        return changes;
      }
      const { sql, params } = compileStatement({ ...statement, returning: undefined });
      return this.prepare(sql).run(...(params as never[])).changes;
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private changeTableNow(change: TableChange): void {
    try {
      applyTableChange(this.connection, change);
      // DDL invalidates prepared statements that name the table.
      this.statements.clear();
      this.strictTables.clear();
    } catch (error) {
      throw translateSqliteError(error);
    }
  }
}
