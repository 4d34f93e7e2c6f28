/**
 * Rate-limit windows in PostgreSQL, shared by every server process on the database: one
 * atomic upsert per hit, fixed windows timed by the server's Clock (so tests can move time).
 * It has the shape of the auth RateLimiter port (`auth/rate-limiter.ts`), which store/ may
 * not import; the composition root plugs it in.
 */
import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import { quoteIdent } from '../sql-compiler.js';
import { col, RATE_LIMITS } from '../system-tables.js';
import { translatePgError } from './pg-errors.js';
import { SYSTEM_SCHEMA } from './pg-migrations.js';

const TABLE = `${quoteIdent(SYSTEM_SCHEMA)}.${quoteIdent(RATE_LIMITS.table)}`;
const KEY = quoteIdent(col(RATE_LIMITS, 'key').name);
const COUNT = quoteIdent(col(RATE_LIMITS, 'count').name);
const RESET_AT = quoteIdent(col(RATE_LIMITS, 'reset_at').name);
const ALLOWED = quoteIdent(col(RATE_LIMITS, 'allowed').name);
const PRUNE_EVERY_MS = 60_000;

/*
 * The whole decision in one statement, so concurrent hits from several processes cannot both
 * take the last slot: SET expressions read the row as it was before this hit. A refused hit
 * is not counted, so hammering a closed window does not extend it.
 */
const CONSUME = `
  INSERT INTO ${TABLE} AS r (${KEY}, ${COUNT}, ${RESET_AT}, ${ALLOWED}) VALUES ($1, 1, $2::bigint + $3::bigint, TRUE)
  ON CONFLICT (${KEY}) DO UPDATE SET
    ${ALLOWED} = (r.${RESET_AT} <= $2::bigint OR r.${COUNT} < $4::bigint),
    ${COUNT} = CASE WHEN r.${RESET_AT} <= $2::bigint THEN 1
      WHEN r.${COUNT} < $4::bigint THEN r.${COUNT} + 1 ELSE r.${COUNT} END,
    ${RESET_AT} = CASE WHEN r.${RESET_AT} <= $2::bigint THEN $2::bigint + $3::bigint ELSE r.${RESET_AT} END
  RETURNING ${ALLOWED} AS allowed, ${RESET_AT} AS reset_at`;
const REFUND = `UPDATE ${TABLE} SET ${COUNT} = ${COUNT} - 1 WHERE ${KEY} = $1 AND ${COUNT} > 0`;
const PRUNE = `DELETE FROM ${TABLE} WHERE ${RESET_AT} <= $1::bigint`;

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
