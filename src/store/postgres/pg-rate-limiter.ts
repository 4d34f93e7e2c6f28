/**
 * Rate-limit windows in PostgreSQL, shared by every server process on the database: one
 * atomic upsert per hit, fixed windows timed by the server's Clock (so tests can move time).
 * It has the shape of the auth RateLimiter port (`auth/rate-limiter.ts`), which store/ may
 * not import; the composition root plugs it in.
 */
import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import { quoteIdent } from '../sql-compiler.js';
import { translatePgError } from './pg-errors.js';
import { SYSTEM_SCHEMA } from './pg-migrations.js';

const TABLE = `${quoteIdent(SYSTEM_SCHEMA)}.${quoteIdent('rate_limits')}`;
const PRUNE_EVERY_MS = 60_000;

/*
 * The whole decision in one statement, so concurrent hits from several processes cannot both
 * take the last slot: SET expressions read the row as it was before this hit. A refused hit
 * is not counted, so hammering a closed window does not extend it.
 */
const CONSUME = `
  INSERT INTO ${TABLE} AS r (key, count, reset_at, allowed) VALUES ($1, 1, $2::bigint + $3::bigint, TRUE)
  ON CONFLICT (key) DO UPDATE SET
    allowed = (r.reset_at <= $2::bigint OR r.count < $4::bigint),
    count = CASE WHEN r.reset_at <= $2::bigint THEN 1 WHEN r.count < $4::bigint THEN r.count + 1 ELSE r.count END,
    reset_at = CASE WHEN r.reset_at <= $2::bigint THEN $2::bigint + $3::bigint ELSE r.reset_at END
  RETURNING allowed, reset_at`;
const REFUND = `UPDATE ${TABLE} SET count = count - 1 WHERE key = $1 AND count > 0`;
const PRUNE = `DELETE FROM ${TABLE} WHERE reset_at <= $1::bigint`;

/** The answer to one hit (the auth port's RateLimitDecision). */
export interface SharedRateLimitDecision {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
}

/** A rate limiter whose counters several processes share. */
export interface SharedRateLimiter {
  /** Counts one hit against `key` (at most `limit` per `windowSeconds`); throws StoreError('unavailable'). */
  consume(key: string, limit: number, windowSeconds: number): Promise<SharedRateLimitDecision>;
  /** Takes back one counted hit of `key`. */
  refund(key: string): Promise<void>;
}

/** Builds the limiter on the engine's pool; expired windows are pruned about once a minute. */
export function buildPostgresRateLimiter(pool: pg.Pool, clock: Clock): SharedRateLimiter {
  let lastPrune = 0;
  const prune = (now: number): void => {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    pool.query(PRUNE, [now]).catch(() => undefined); // housekeeping only: a failed prune retries next minute
  };
  return {
    async consume(key, limit, windowSeconds) {
      const now = clock.now();
      prune(now);
      try {
        const result = await pool.query(CONSUME, [key, now, windowSeconds * 1000, limit]);
        const row = result.rows[0] as { allowed: boolean; reset_at: number };
        if (row.allowed) return { allowed: true, retryAfterSeconds: 0 };
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((Number(row.reset_at) - now) / 1000)) };
      } catch (error) {
        throw translatePgError(error);
      }
    },
    async refund(key) {
      try {
        await pool.query(REFUND, [key]);
      } catch (error) {
        throw translatePgError(error);
      }
    },
  };
}
