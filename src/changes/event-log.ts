/**
 * The realtime event log of one project (docs/realtime.md): every committed row change, and
 * every end of an identity (logout, password change...), as numbered entries in the project's
 * own database (`_rb_events`, with the counter row `_rb_event_state`).
 *
 * Every write is logged on both engines, whether or not a stream listens: the log is what a
 * `since` resumes from, and it must outlive the process (a restart keeps it, the trim alone
 * removes entries, after the kept window).
 *
 * Numbers come from the log's own sequence (AUTOINCREMENT on SQLite, a PostgreSQL sequence),
 * taken by the last statement of the writing transaction (a write by filter on PostgreSQL: its
 * one statement, once the write is done; on SQLite just before the write, in the same
 * transaction: no other writer can commit in between). SQLite commits one writer at a time,
 * so its numbers are gap-free and in commit order. On PostgreSQL a number may become visible
 * after a higher one (its transaction is still committing) or never (it rolled back): readers
 * deliver `cursor + 1` next and wait at a gap until it fills or every transaction that was in
 * progress when the gap was seen has ended (`Database.hasSettled`), docs/realtime.md.
 *
 * Lives in src/changes/, below both its writers (tables/, auth/, projects/) and its reader (the
 * realtime hub): statements are SQL trees (the engines compile them) over the store ports.
 */
import { sql } from '../query/sql-tree.js';
import type { ColumnRef } from '../query/sql-tree.js';
import { col, cols, EVENT_STATE, EVENTS as EVENT_LOG } from '../store/system-tables.js';
import type { Database, Executor, Row } from '../store/types.js';

/** A change to one row, as the data API shows the row. */
export interface RowChange {
  readonly table: string;
  readonly action: 'create' | 'update' | 'delete';
  /** The new row for create and update, the row as it was for delete. */
  readonly record: Row;
  /** `JSON.stringify(record)`, when the writer made it anyway (for its answer): stored as is. */
  readonly recordJson?: string;
}

/** An identity that stops being valid: a session, every session of a user, a password version, or all. */
export interface IdentityChange {
  readonly session?: string;
  readonly user?: string;
  /** With `user`: tokens minted for an older password version end (a password change). */
  readonly password_version?: number;
  /** With `user`: a session that survives (change-password keeps the caller's own). */
  readonly keep_session?: string;
  readonly all?: boolean;
}

/** One entry of the log, as read back. */
export type LoggedEvent =
  | { readonly seq: number; readonly kind: 'row'; readonly change: RowChange; readonly createdAt: string }
  | { readonly seq: number; readonly kind: 'identity'; readonly change: IdentityChange; readonly createdAt: string };

/** The log's bounds: the last number given, and the last number trimmed away. */
export interface LogState {
  readonly lastSeq: number;
  readonly trimmedThrough: number;
}

/** Where a new reader of the log starts (`readLogStart`). */
export interface LogStart {
  /** The number the reader has passed: every number up to it is settled. */
  readonly cursor: number;
  /** The highest visible number. */
  readonly head: number;
}

/** Told about entries once their transaction committed (the hub); may ignore them. */
export interface ChangeFeed {
  committed(projectId: string, events: readonly LoggedEvent[]): void;
  /**
   * This process committed entries up to number `lastSeq` that it did not read back (the
   * database built them: `Executor.writeLoggingRows`); a feed reads them from the log.
   */
  loggedThrough(projectId: string, lastSeq: number): void;
}

const EVENTS = EVENT_LOG.table;
const STATE = EVENT_STATE.table;
const IDENTITY = '_identity';
const SEQ = col(EVENT_LOG, 'seq');
const WRITTEN_COLUMNS: readonly ColumnRef[] = Object.freeze(
  cols(EVENT_LOG, ['created_at', 'table_name', 'action', 'record']),
);
const EVENT_COLUMNS: readonly ColumnRef[] = EVENT_LOG.columns;
const TRIMMED = col(EVENT_STATE, 'trimmed_through');
const STATE_ROW = sql.eq('id', 1, 'integer');
// Rows per INSERT: 10,000 parameters, well under PostgreSQL's limit, so a bulk of 1,000 rows logs
// in one round trip (SQLite's store splits a statement further itself).
const INSERT_CHUNK = 2500;
// How many of the last entries a new reader checks for numbers still being committed.
const START_WINDOW = 500;

/**
 * Appends row changes with `tx` (last in the writing transaction, so a number is taken just
 * before the commit) and returns the numbered entries for `ChangeFeed.committed`.
 */
export async function appendRowChanges(
  tx: Executor,
  changes: readonly RowChange[],
  now: string,
): Promise<LoggedEvent[]> {
  if (changes.length === 0) return [];
  const seqs = await insert(
    tx,
    changes.map((c) => [now, c.table, c.action, c.recordJson ?? JSON.stringify(c.record)]),
  );
  return changes.map((change, i): LoggedEvent => ({ seq: seqs[i]!, kind: 'row', change, createdAt: now }));
}

/** Appends the end of an identity with `tx`, inside the transaction that ends it. */
export async function appendIdentityChange(tx: Executor, change: IdentityChange, now: string): Promise<void> {
  await insert(tx, [[now, IDENTITY, 'identity', JSON.stringify(change)]]);
}

/** Entries numbered after `after`, in order, at most `limit`. */
export async function readEvents(db: Executor, after: number, limit: number): Promise<LoggedEvent[]> {
  const rows = await db.all({
    kind: 'select',
    table: EVENTS,
    columns: EVENT_COLUMNS,
    where: { kind: 'compare', op: '>', left: sql.column('seq'), right: sql.value(after, 'integer') },
    orderBy: [{ column: 'seq', descending: false }],
    limit,
  });
  return rows.map(toEvent);
}

/** The log's bounds: the highest visible number (or where the log was trimmed, when empty). */
export async function readLogState(db: Executor): Promise<LogState> {
  const row = await db.first({ kind: 'select', table: STATE, columns: [TRIMMED], where: STATE_ROW });
  const trimmedThrough = Number(row?.trimmed_through ?? 0);
  const last = await db.first({
    kind: 'select',
    table: EVENTS,
    columns: [SEQ],
    orderBy: [{ column: 'seq', descending: true }],
    limit: 1,
  });
  return { lastSeq: Math.max(trimmedThrough, Number(last?.seq ?? 0)), trimmedThrough };
}

/**
 * Where a reader that starts now may begin without passing a number still being committed
 * (`LogStart.cursor`), and the log's head. Where one writer commits at a time (`gaps` false),
 * both are the head. Otherwise a number missing below the head may belong to a transaction
 * still committing (docs/realtime.md "Order"): the reader starts just below the lowest
 * number missing among the last entries, and waits at it like at any gap. Only gaps under an
 * entry written from `recentFrom` on count: older ones were rolled back long ago.
 */
export async function readLogStart(db: Executor, gaps: boolean, recentFrom: string): Promise<LogStart> {
  const { lastSeq, trimmedThrough } = await readLogState(db);
  if (!gaps) return { cursor: lastSeq, head: lastSeq };
  const recent = await db.all({
    kind: 'select',
    table: EVENTS,
    columns: [SEQ, col(EVENT_LOG, 'created_at')],
    where: { kind: 'compare', op: '>', left: sql.column('seq'), right: sql.value(trimmedThrough, 'integer') },
    orderBy: [{ column: 'seq', descending: true }],
    limit: START_WINDOW,
  });
  let cursor = lastSeq;
  for (let i = 0; i + 1 < recent.length; i++) {
    const above = recent[i]!;
    if (String(above.created_at) < recentFrom) break;
    const below = Number(recent[i + 1]!.seq);
    if (below < Number(above.seq) - 1) cursor = below;
  }
  return { cursor, head: lastSeq };
}

/**
 * Removes entries written before `cutoff` (an ISO time) and moves `trimmed_through` past them.
 * Returns the log's bounds afterwards.
 */
export async function trimEvents(db: Database, cutoff: string): Promise<LogState> {
  return db.transaction(async (tx) => {
    // The lowest entry to keep, walking up from the oldest: entries follow time closely, so this
    // reads about as many entries as it trims, with no index on created_at for every write to
    // maintain. Every entry below it is older than `cutoff`, whatever the order of the others.
    const kept = await tx.first({
      kind: 'select',
      table: EVENTS,
      columns: [SEQ],
      where: { kind: 'compare', op: '>=', left: sql.column('created_at'), right: sql.value(cutoff, 'text') },
      orderBy: [{ column: 'seq', descending: false }],
      limit: 1,
    });
    const old = await tx.first({
      kind: 'select',
      table: EVENTS,
      columns: [SEQ],
      ...(kept && {
        where: { kind: 'compare', op: '<', left: sql.column('seq'), right: sql.value(Number(kept.seq), 'integer') },
      }),
      orderBy: [{ column: 'seq', descending: true }],
      limit: 1,
    });
    if (old) {
      const through = Number(old.seq);
      await tx.run({
        kind: 'delete',
        table: EVENTS,
        where: { kind: 'compare', op: '<=', left: sql.column('seq'), right: sql.value(through, 'integer') },
      });
      await tx.run({
        kind: 'update',
        table: STATE,
        set: [{ column: TRIMMED, value: sql.value(through, 'integer') }],
        where: sql.and(STATE_ROW, {
          kind: 'compare',
          op: '<',
          left: sql.column('trimmed_through'),
          right: sql.value(through, 'integer'),
        }),
      });
    }
    return readLogState(tx);
  });
}

/** Inserts entries (numbers taken by the database, in row order) and returns their numbers. */
async function insert(tx: Executor, rows: readonly (readonly unknown[])[]): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const written = await tx.all({
      kind: 'insert',
      table: EVENTS,
      columns: WRITTEN_COLUMNS,
      rows: rows.slice(i, i + INSERT_CHUNK),
      returning: [SEQ],
    });
    // A VALUES list takes its numbers in row order; sorting guards against RETURNING reordering.
    seqs.push(...written.map((row) => Number(row.seq)).sort((x, y) => x - y));
  }
  return seqs;
}

function toEvent(row: Row): LoggedEvent {
  const seq = Number(row.seq);
  const createdAt = String(row.created_at);
  const record = JSON.parse(String(row.record)) as Record<string, unknown>;
  if (row.table_name === IDENTITY) return { seq, kind: 'identity', change: record as IdentityChange, createdAt };
  return {
    seq,
    kind: 'row',
    change: { table: String(row.table_name), action: row.action as RowChange['action'], record },
    createdAt,
  };
}
