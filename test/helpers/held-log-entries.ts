/**
 * Two event-log entries whose numbers commit out of order on PostgreSQL, as two concurrent
 * writes can leave them: `late` takes the lower number but commits after `early`. The
 * realtime reader must wait at the lower number, never skip it. Used by the e2e tests that
 * check this across processes and across a restart.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';

/**
 * Opens a transaction on each client (each gets its transaction id first, as a real write
 * does), appends entry `lowN` with `late` and `highN` with `early` to `schema`'s log, and
 * commits `early` only. Returns the two numbers; the caller commits `late` when it wants.
 */
export async function holdLowerEntry(
  schema: string,
  early: pg.Client,
  late: pg.Client,
  [lowN, highN]: readonly [number, number],
): Promise<{ low: number; high: number }> {
  const entry = (n: number) => [new Date().toISOString(), 'items', 'create', JSON.stringify({ id: `held-${n}`, n })];
  const append =
    `INSERT INTO ${schema}._rb_events (created_at, ` +
    'table_name, action, record) VALUES ($1, $2, $3, $4) RETURNING seq';
  await early.query('BEGIN');
  await early.query('SELECT pg_current_xact_id()');
  await late.query('BEGIN');
  await late.query('SELECT pg_current_xact_id()');
  const low = Number((await late.query(append, entry(lowN))).rows[0].seq);
  const high = Number((await early.query(append, entry(highN))).rows[0].seq);
  assert.equal(high, low + 1);
  await early.query('COMMIT');
  return { low, high };
}
