/**
 * One SQLite database behind the storage ports. better-sqlite3 is synchronous and one
 * connection is shared by every request, so an open transaction holds a lock that other
 * callers wait for: otherwise their statements would land inside it across an `await`.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { Executor, LoggedWrite, ProjectDatabase, Row, SchemaExecutor } from '../types.js';
import { translateSqliteError } from './sqlite-errors.js';
import { SqliteStatements } from './sqlite-statements.js';
import { WalSync } from './wal-sync.js';

export interface SqliteOptions {
  readonly synchronous: 'full' | 'normal';
  /**
   * This process holds the data folder exclusively (data-dir-lock.ts), so no other process
   * writes: `externalChangeVersion()` need not ask SQLite (`PRAGMA data_version`) on every request.
   */
  readonly soleWriter?: boolean;
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

/** Which kind of transaction `exclusive` runs. */
interface TransactionKind {
  /** A table change: foreign keys are off while it runs and checked before it commits. */
  readonly schemaChange: boolean;
}

// The two kinds, shared: a data transaction runs per write request and allocates no options.
const DATA_TRANSACTION: TransactionKind = Object.freeze({ schemaChange: false });
const SCHEMA_CHANGE: TransactionKind = Object.freeze({ schemaChange: true });

/** A better-sqlite3 connection implementing Database, ProjectDatabase and SchemaExecutor. */
/** Counts uses of every SqliteDatabase: an order of recent use, cheaper than reading a clock per statement. */
let uses = 0;

export class SqliteDatabase implements ProjectDatabase {
  /**
   * When this database was last used, on the shared `uses` count. The pool closes the least
   * recently used handle first; reads that skip the pool (the schema cache hands out the
   * database object) still count, because every statement marks it.
   */
  lastUse = 0;
  private readonly statements = new SqliteStatements(() => this.connection);
  private handle: BetterSqlite3.Database | null = null;
  private dataVersion: BetterSqlite3.Statement | null = null;
  private dataVersionOffset = 0;
  private versionThisTurn: number | undefined;
  private lock: Promise<void> | null = null;
  private readonly direct: SchemaExecutor;
  /** Set while a connection is open when commits must reach the disk before they are acknowledged. */
  private walSync: WalSync | undefined;
  private walSyncs = 0;
  private readonly walHandlesClosing = new Set<Promise<void>>();

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
    const statements = this.statements;
    this.direct = {
      all: async (s) => statements.all(s),
      first: async (s) => statements.first(s),
      count: async (s) => statements.count(s),
      run: async (s) => statements.run(s),
      writeLoggingRows: async (write, log) => statements.writeLoggingRows(write, log),
      changeTable: async (change) => statements.changeTable(change),
    };
  }

  /** Marks this database used now (the pool handed it out). */
  markUsed(): void {
    this.lastUse = ++uses;
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
    this.lastUse = ++uses;
    if (this.lock) await this.whenIdle();
    return statement.kind === 'select'
      ? this.statements.all(statement)
      : this.durably(() => this.statements.all(statement));
  }

  async first(statement: Parameters<Executor['first']>[0]): Promise<Row | undefined> {
    this.lastUse = ++uses;
    if (this.lock) await this.whenIdle();
    return statement.kind === 'select'
      ? this.statements.first(statement)
      : this.durably(() => this.statements.first(statement));
  }

  async count(statement: Parameters<Executor['count']>[0]): Promise<number> {
    this.lastUse = ++uses;
    if (this.lock) await this.whenIdle();
    return this.statements.count(statement);
  }

  async run(statement: Parameters<Executor['run']>[0]): Promise<number> {
    this.lastUse = ++uses;
    if (this.lock) await this.whenIdle();
    return this.durably(() => this.statements.run(statement));
  }

  async writeLoggingRows(
    write: Parameters<Executor['writeLoggingRows']>[0],
    log: Parameters<Executor['writeLoggingRows']>[1],
  ): Promise<LoggedWrite> {
    this.lastUse = ++uses;
    if (this.lock) await this.whenIdle();
    return this.durably(() => this.statements.writeLoggingRows(write, log));
  }

  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    this.lastUse = ++uses;
    const { result, wrote } = await this.refusedDurably(() =>
      this.exclusive(DATA_TRANSACTION, () => work(this.direct)),
    );
    if (wrote) await this.walSync?.durable();
    return result;
  }

  async changeSchema<T>(work: (tx: SchemaExecutor) => Promise<T>): Promise<T> {
    this.lastUse = ++uses;
    const { result } = await this.refusedDurably(() => this.exclusive(SCHEMA_CHANGE, () => work(this.direct)));
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
    // The only writer: nothing changes behind this process's back; the offset still moves when a handle is reopened.
    if (this.options.soleWriter) return this.dataVersionOffset;
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

  dataGeneration(): number | undefined {
    // A transaction may write before it commits, and reads wait for it: rows kept from before
    // and rows read after its commit must not meet in one answer.
    if (this.lock) return undefined;
    // Both parts only grow: this process's write statements, and changes from elsewhere
    // (data_version, whose offset moves past every value of a closed handle).
    return this.statements.writes + this.externalChangeVersion();
  }

  /**
   * The connection is closing: the next one's data_version starts again from a small number,
   * so the offset moves past every value this one gave (numbers never repeat or go back).
   */
  private retireDataVersion(): void {
    const last = this.dataVersion && this.handle?.open ? (this.dataVersion.get() as number) : 0;
    this.dataVersionOffset += last + 1_000_000;
    this.versionThisTurn = undefined;
    this.dataVersion = null;
  }

  /**
   * Closes the connection if idle; the next use reopens it. Returns
   * false when busy (a transaction, or writes waiting for their sync).
   */
  release(): boolean {
    const inUse = this.lock !== null || (this.walSync?.busy ?? false);
    if (inUse || !this.handle) return !inUse;
    this.statements.forget();
    this.retireDataVersion();
    this.handle.close();
    this.handle = null;
    // The WAL file handle closes in the background; close() waits for it.
    const closing = this.forgetWal().finally(() => this.walHandlesClosing.delete(closing));
    this.walHandlesClosing.add(closing);
    return true;
  }

  /** Closes the connection for good (the caller makes sure no transaction is open); resolves once no file is open. */
  async close(): Promise<void> {
    this.statements.forget();
    this.retireDataVersion();
    this.handle?.close();
    this.handle = null;
    await Promise.all([this.forgetWal(), ...this.walHandlesClosing]);
  }

  /** Closing the connection checkpoints the WAL into the (synced) database file; the next open starts a new WalSync. */
  private async forgetWal(): Promise<void> {
    const walSync = this.walSync;
    this.walSync = undefined;
    await walSync?.reset();
  }

  private async whenIdle(): Promise<void> {
    while (this.lock) await this.lock;
  }

  /** Runs `work` in a transaction holding the lock; `wrote` says whether it ran a write statement. */
  private async exclusive<T>(
    { schemaChange }: TransactionKind,
    work: () => Promise<T>,
  ): Promise<{ result: T; wrote: boolean }> {
    // Check and take the lock with no await in between: two transactions started in the same
    // tick would otherwise both see it free and the second BEGIN would fail.
    while (this.lock) await this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    const db = this.connection;
    // Table rebuilds must run with foreign keys off (else DROP TABLE cascades); the pragma
    // is a no-op inside a transaction, so it is set before BEGIN and checked before COMMIT.
    if (schemaChange) db.pragma('foreign_keys = OFF');
    try {
      db.exec('BEGIN IMMEDIATE');
      const writesBefore = this.statements.writes;
      try {
        const result = await work();
        if (schemaChange) {
          const violations = db.pragma('foreign_key_check') as { table: string }[];
          if (violations.length > 0) {
            throw translateSqliteError(
              Object.assign(new Error(`FOREIGN KEY constraint failed: ${violations[0]!.table}`), {
                code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
              }),
            );
          }
        }
        db.exec('COMMIT');
        return { result, wrote: this.statements.writes !== writesBefore };
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw translateSqliteError(error);
      }
    } finally {
      if (schemaChange) db.pragma('foreign_keys = ON');
      this.lock = null;
      release();
    }
  }
}
