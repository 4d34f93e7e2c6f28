/**
 * Rate-limit windows in Redis (REDIS_URL), shared by every server process: one Lua script per
 * hit, so the check and the count are atomic. Windows are timed by the server's Clock (so
 * tests can move time); Redis's own expiry only removes keys long after their window ended.
 * It has the shape of the auth RateLimiter port; the composition root plugs it in.
 *
 * Client: `redis` (node-redis), the client maintained by Redis itself, promise-based with
 * its own types.
 */
import { createClient } from 'redis';
import type { Clock } from '../../lib/clock.js';
import { StoreError } from '../types.js';

// KEYS[1] = window key; ARGV = now (ms), window (ms), limit. Returns {allowed, reset_at}.
const CONSUME = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'count', 'reset')
local count = tonumber(state[1])
local reset = tonumber(state[2])
if count == nil or reset <= now then
  redis.call('HSET', KEYS[1], 'count', 1, 'reset', now + window)
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1, now + window}
end
if count >= limit then return {0, reset} end
redis.call('HINCRBY', KEYS[1], 'count', 1)
return {1, reset}`;

const REFUND = `
local count = tonumber(redis.call('HGET', KEYS[1], 'count'))
if count ~= nil and count > 0 then redis.call('HINCRBY', KEYS[1], 'count', -1) end
return 0`;

/** The counting a limiter does; the shape of the auth RateLimiter port, which store/ may not import. */
export interface RateCounter {
  consume(key: string, limit: number, windowSeconds: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  refund(key: string): Promise<void>;
}

export interface RedisRateLimiterOptions {
  readonly url: string;
  readonly clock: Clock;
  /** Prefix of every key (default `rowbase:rl:`), so one Redis can serve several deployments. */
  readonly keyPrefix?: string;
  /**
   * Where hits are counted while Redis does not answer (the composition root passes the
   * process's in-memory limiter). Without it, a hit then throws StoreError('unavailable').
   */
  readonly fallback?: RateCounter;
  /** The longest one Redis call may take before the hit goes to the fallback, in ms (default 500). */
  readonly commandTimeoutMs?: number;
  /** Receives connection errors (for logs). */
  readonly onError?: (error: unknown) => void;
  /** Told when counting moves to the fallback, with the failure that moved it. */
  readonly onFallbackStarted?: (cause: unknown) => void;
  /** Told when counting moves back to Redis. */
  readonly onFallbackEnded?: () => void;
}

/** A limiter on Redis; `close()` ends the connection. */
export interface RedisRateLimiter extends RateCounter {
  close(): Promise<void>;
}

// After a failed call, hits skip Redis for this long, so a dead or
// frozen Redis costs one timeout per second, not one per request.
const RETRY_REDIS_AFTER_MS = 1_000;

function unavailable(error: unknown): StoreError {
  return new StoreError('unavailable', `Redis: ${error instanceof Error ? error.message : String(error)}`, undefined, {
    cause: error,
  });
}

/**
 * Connects and returns the limiter. Throws StoreError('unavailable') when Redis does not
 * answer at start (a wrong REDIS_URL is refused rather than silently replaced). Later
 * failures use `fallback` until a call to Redis succeeds again.
 */
export async function buildRedisRateLimiter(options: RedisRateLimiterOptions): Promise<RedisRateLimiter> {
  const prefix = options.keyPrefix ?? 'rowbase:rl:';
  const client = createClient({
    url: options.url,
    // Fail a hit at once while disconnected rather than queue it behind a dead socket.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  });
  client.on('error', (error: unknown) => options.onError?.(error));
  try {
    await client.connect();
  } catch (error) {
    await client.destroy();
    throw unavailable(error);
  }
  const timeoutMs = options.commandTimeoutMs ?? 500;
  let failedAt: number | undefined;
  // Calls that timed out and have not settled: a frozen Redis keeps them forever, so while
  // one is pending no other is sent (node-redis's own command timeout stops at the socket).
  let stuck = 0;
  const timed = <T>(command: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        stuck++;
        reject(new Error(`Redis did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = (): boolean => {
        clearTimeout(timer);
        if (timedOut) stuck--;
        return !timedOut;
      };
      command.then(
        (value) => settle() && resolve(value),
        (error: unknown) => settle() && reject(error),
      );
    });

  /** Runs `onRedis`; on failure (or shortly after one) runs `onFallback` instead, or throws without one. */
  const withFallback = async <T>(
    onRedis: () => Promise<T>,
    onFallback: (fallback: RateCounter) => Promise<T>,
  ): Promise<T> => {
    const fallback = options.fallback;
    if (fallback && (stuck > 0 || (failedAt !== undefined && Date.now() - failedAt < RETRY_REDIS_AFTER_MS)))
      return onFallback(fallback);
    try {
      const result = await onRedis();
      if (failedAt !== undefined) {
        failedAt = undefined;
        options.onFallbackEnded?.();
      }
      return result;
    } catch (error) {
      if (!fallback) throw unavailable(error);
      if (failedAt === undefined) options.onFallbackStarted?.(error);
      failedAt = Date.now();
      return onFallback(fallback);
    }
  };

  return {
    consume(key, limit, windowSeconds) {
      return withFallback(
        async () => {
          const now = options.clock.now();
          const [allowed, reset] = (await timed(
            client.eval(CONSUME, {
              keys: [prefix + key],
              arguments: [String(now), String(windowSeconds * 1000), String(limit)],
            }),
          )) as [number, number];
          if (allowed === 1) return { allowed: true, retryAfterSeconds: 0 };
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((reset - now) / 1000)) };
        },
        (fallback) => fallback.consume(key, limit, windowSeconds),
      );
    },
    refund(key) {
      return withFallback(
        async () => {
          await timed(client.eval(REFUND, { keys: [prefix + key] }));
        },
        (fallback) => fallback.refund(key),
      );
    },
    async close() {
      // A graceful close waits for Redis's answers; a Redis that is down, or frozen (a close
      // would wait forever for a command it holds, and the server would never stop), gets
      // the socket closed instead.
      if (client.isReady && stuck === 0) await timed(client.close()).catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
