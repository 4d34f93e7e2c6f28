/**
 * Storage ports. Domain code (projects/, tables/, auth/, email/) talks to storage only
 * through these interfaces, with statements built as dialect-neutral SQL trees
 * (`query/sql-tree.ts`). Each engine (sqlite/, postgres/) compiles the trees, encodes and
 * decodes values by column type, and translates driver errors into `StoreError` kinds.
 */
import type {
  ColumnRef,
  CountStatement,
  DeleteStatement,
  InsertStatement,
  SelectStatement,
  UpdateStatement,
} from '../query/sql-tree.js';
import type { TableDefinition } from '../schema/definition.js';

/** A decoded row: column name → JS value (booleans as booleans, json parsed, timestamps ISO). */
export type Row = Record<string, unknown>;

/** Runs statements. Results are decoded by the column types the statement names. */
export interface Executor {
  /** Rows of a select, or the `returning` rows of an insert/update/delete. */
  all(statement: SelectStatement | InsertStatement | UpdateStatement | DeleteStatement): Promise<Row[]>;
  /** The first row, or undefined. */
  first(statement: SelectStatement | InsertStatement | UpdateStatement | DeleteStatement): Promise<Row | undefined>;
  /** The number of matching rows. */
  count(statement: CountStatement): Promise<number>;
  /** Runs a write and returns how many rows it changed. */
  run(statement: InsertStatement | UpdateStatement | DeleteStatement): Promise<number>;
  /**
   * Runs an update or delete and appends, with it, one realtime event-log entry (`_rb_events`)
   * per row it changed, built by the database: no row travels to JavaScript and back (an update
   * by filter touches up to 10,000). Use inside a transaction.
   */
  writeLoggingRows(write: UpdateStatement | DeleteStatement, log: RowLog): Promise<LoggedWrite>;
}

/** The entries `Executor.writeLoggingRows` appends: one per changed row, in the log's form. */
export interface RowLog {
  readonly createdAt: string;
  /**
   * The row's columns as the data API shows them, in order: the new values of an update, the
   * row as it was for a delete. An update's `set` holds plain values only.
   */
  readonly record: readonly ColumnRef[];
}

/** What `Executor.writeLoggingRows` did: rows changed (one entry each) and the last log number taken. */
export interface LoggedWrite {
  readonly count: number;
  /** Undefined when no row changed. */
  readonly lastSeq: number | undefined;
}

/** One database (the system database, or one project's). */
export interface Database extends Executor {
  /**
   * Runs `work` in one transaction: commits when it resolves, rolls back when it throws.
   * `work` must use `tx`, not the Database, and should await only storage calls.
   */
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
  /**
   * A number that changes whenever another process or connection changed this database
   * since the last look: caches compare it to know when to reload.
   */
  externalChangeVersion(): number | Promise<number>;
  /**
   * Engines where this process sees every write to the database (SQLite, whose data folder one
   * process owns): a number that moves with every write statement run here and with every
   * change seen from elsewhere, read without I/O. Caches of rows key on it: an entry made at
   * one generation is stale at any other. Undefined while a transaction holds the database (a
   * read now waits for its commit, so kept rows and rows read now could disagree). Absent where
   * other processes write unseen (PostgreSQL).
   */
  dataGeneration?(): number | undefined;
  /**
   * Engines with concurrent writers (PostgreSQL): an opaque mark past every transaction in
   * progress now. With `hasSettled`, a reader tells a number still being committed from one
   * whose transaction rolled back. Absent where one writer commits at a time (SQLite).
   */
  transactionHorizon?(): Promise<string>;
  /** True once every transaction in progress when `horizon` was taken has ended. */
  hasSettled?(horizon: string): Promise<boolean>;
}

/** A change to one table's physical shape; the engine picks the DDL. */
export interface TableChange {
  readonly before: TableDefinition | null;
  readonly after: TableDefinition | null;
  /** Declared columns whose values are cleared because their type changed (allowed destructive change). */
  readonly resetColumns: readonly string[];
}

/** An executor that may also change table shapes, inside one schema transaction. */
export interface SchemaExecutor extends Executor {
  /**
   * Applies the table change; throws StoreError('check'|'unique'|'reference'|'not-null') when existing rows forbid it.
   */
  changeTable(change: TableChange): Promise<void>;
}

/** A project's database: data tables plus the project's internal tables (`_rb_*`). */
export interface ProjectDatabase extends Database {
  /**
   * Runs `work` in one transaction that may change table shapes; the definition rows it
   * writes and the DDL commit or roll back together. Foreign keys are checked at the end.
   */
  changeSchema<T>(work: (tx: SchemaExecutor) => Promise<T>): Promise<T>;
}

/** What an engine can do, for the few places where behaviour depends on it. */
export interface EngineCapabilities {
  /** The engine's name for logs and /health. */
  readonly name: 'sqlite' | 'postgres';
  /** Several server processes may share this storage. */
  readonly sharedAcrossProcesses: boolean;
}

/**
 * Wake-ups for the realtime readers of this process when another process appended to a
 * project's event log. Only a hint: readers must also poll, since a notification can be lost.
 */
export interface EventWakeups {
  /** Calls `handler` with the project id whose event log grew. */
  onEvents(handler: (projectId: string) => void): void;
  /** Calls `handler` after the connection came back: notifications sent meanwhile were missed. */
  onReconnect(handler: () => void): void;
}

/** A storage engine: the system database plus one database per project. */
export interface StorageEngine {
  readonly capabilities: EngineCapabilities;
  /** Present where several processes share the storage (PostgreSQL). */
  readonly eventWakeups?: EventWakeups;
  /** The system database: projects, keys, settings, platform key, mail queue. */
  readonly system: Database;
  /** Creates the storage of a new project (file or schema) with its internal tables. */
  createProject(projectId: string): Promise<void>;
  /** Opens (or returns the open) database of a project; throws if it has no storage. */
  project(projectId: string): Promise<ProjectDatabase>;
  /** Removes a project's storage and everything in it. */
  dropProject(projectId: string): Promise<void>;
  /** True when storage answers (for /health). */
  ping(): Promise<boolean>;
  /** Closes every connection; further calls fail. */
  close(): Promise<void>;
}

/** Driver failures, translated once per engine into kinds domain code can act on. */
export type StoreErrorKind = 'unique' | 'reference' | 'not-null' | 'check' | 'busy' | 'unavailable';

/** A translated driver error. `column` names the offending column when the engine can tell. */
/**
 * Storage could not be opened when the process started (no such database, nothing listening,
 * a refused user): the message says what went wrong in the operator's terms, the suggestion
 * what to do about it. Never carries a password.
 */
export class StorageStartError extends Error {
  constructor(
    message: string,
    readonly suggestion: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageStartError';
  }
}

export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    readonly column?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
