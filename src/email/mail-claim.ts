/**
 * Leasing rows of the mail queue, shared by the mail worker (pending mails) and the mail
 * request worker (forgot-password requests): due, unleased rows of one status are selected and
 * leased in one transaction, so concurrent workers and processes each take a different batch.
 */
import { col, MAIL_QUEUE } from '../store/system-tables.js';
import { sql, type ColumnRef, type Expr } from '../query/sql-tree.js';
import type { Database, Executor, Row } from '../store/types.js';

export interface ClaimOptions {
  /** The status of the rows to take (`MAIL_STATUS`). */
  readonly status: string;
  /** Columns to read from each claimed row. */
  readonly columns: readonly ColumnRef[];
  /** Now and the end of the lease, ISO 8601. */
  readonly now: string;
  readonly leaseUntil: string;
  readonly batchSize: number;
}

/**
 * Takes up to `batchSize` due rows (oldest first) and leases them. Each claimed row's attempt
 * is counted now, so a mail that crashes the process cannot loop forever; the rows come back
 * with `attempts` already counted.
 */
export function claimDueRows(db: Database, options: ClaimOptions): Promise<Row[]> {
  const { now } = options;
  const due = sql.and(
    sql.eq('status', options.status),
    before('next_attempt_at', '<=', now),
    sql.or(sql.isNull(sql.column('locked_until')), before('locked_until', '<=', now)),
  );
  return db.transaction(async (tx: Executor) => {
    // forUpdate: on PostgreSQL, concurrent workers lock (or skip) the rows they select;
    // SQLite's transaction already locks the whole file.
    const rows = await tx.all({
      kind: 'select',
      table: MAIL_QUEUE.table,
      columns: options.columns,
      where: due,
      orderBy: [
        { column: 'next_attempt_at', descending: false },
        { column: 'id', descending: false },
      ],
      limit: options.batchSize,
      forUpdate: true,
      // Another worker's claimed rows are skipped, not waited for: each takes a different batch.
      skipLocked: true,
    });
    if (rows.length === 0) return rows;
    await tx.run({
      kind: 'update',
      table: MAIL_QUEUE.table,
      set: [
        { column: col(MAIL_QUEUE, 'locked_until'), value: sql.value(options.leaseUntil, 'text') },
        {
          column: col(MAIL_QUEUE, 'attempts'),
          value: { kind: 'add', left: sql.column('attempts'), right: sql.value(1, 'integer') },
        },
      ],
      where: sql.and(due, { kind: 'in', expr: sql.column('id'), values: rows.map((row) => sql.value(row.id, 'text')) }),
    });
    return rows.map((row) => ({ ...row, attempts: Number(row.attempts) + 1 }));
  });
}

/** `name op value` on an ISO 8601 text column (timestamps of the queue compare as text). */
export function before(name: string, op: '<=' | '<', value: string): Expr {
  return { kind: 'compare', op, left: sql.column(name), right: sql.value(value, 'text') };
}
