/**
 * `last_used_at` of sessions without a write per request: each process remembers when it last
 * wrote a session's time and writes again only a minute later. The write itself is
 * conditional (`last_used_at` older than a minute), so several processes on one PostgreSQL
 * database together write a session at most about once a minute: approximate by design
 * (a session shows its last use to within a minute), never a write per request.
 */
import { sql } from '../query/sql-tree.js';
import { col, SESSIONS } from '../store/system-tables.js';
import type { Executor } from '../store/types.js';

/** A session's `last_used_at` is written at most this often. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Sessions remembered per process; past it the memory starts over (costing one conditional write each). */
const MAX_REMEMBERED = 50_000;

const LAST_USED = col(SESSIONS, 'last_used_at');

/** Remembers, per project session, when this process last wrote `last_used_at`. */
export class SessionActivity {
  private readonly written = new Map<string, number>();

  /**
   * Notes that a session was used at `nowMs`; writes `last_used_at` when this process has not
   * written it for a minute, and then only if no other process did either.
   */
  async touch(executor: Executor, projectId: string, sessionId: string, nowMs: number): Promise<void> {
    const key = `${projectId}\0${sessionId}`;
    const last = this.written.get(key);
    if (last !== undefined && nowMs - last < LAST_USED_WRITE_INTERVAL_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(key, nowMs);
    const now = new Date(nowMs).toISOString();
    const staleBefore = new Date(nowMs - LAST_USED_WRITE_INTERVAL_MS).toISOString();
    await executor.run({
      kind: 'update',
      table: SESSIONS.table,
      set: [{ column: LAST_USED, value: sql.value(now, 'text') }],
      where: sql.and(
        sql.eq('id', sessionId),
        sql.or(sql.isNull(sql.column('last_used_at')), {
          kind: 'compare',
          op: '<',
          left: sql.column('last_used_at'),
          right: sql.value(staleBefore, 'text'),
        }),
      ),
    });
  }
}
