/**
 * The in-memory RateLimiter: fixed windows per key in one bounded Map. Right for a single
 * process; several processes need a shared implementation (issue 4).
 */
import type { Clock } from '../lib/clock.js';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

interface Window {
  count: number;
  readonly resetAt: number;
}

export interface MemoryRateLimiterOptions {
  readonly clock: Clock;
  /** Most keys held at once (default 100,000, roughly 10 MB). */
  readonly maxKeys?: number;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/**
 * Builds the in-memory limiter. Memory is bounded: when the map is full, expired windows
 * are swept and, if that is not enough, the oldest tenth of the keys is dropped (an
 * attacker who floods keys can only reset the oldest counters, never grow memory).
 */
export function buildMemoryRateLimiter(options: MemoryRateLimiterOptions): RateLimiter {
  const { clock } = options;
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, Window>();

  const makeRoom = (now: number): void => {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    if (windows.size < maxKeys) return;
    let toDrop = Math.max(1, Math.floor(maxKeys / 10));
    // Map iteration follows insertion order: the first keys are the oldest windows.
    for (const key of windows.keys()) {
      if (toDrop-- <= 0) break;
      windows.delete(key);
    }
  };

  const consumeNow = (key: string, limit: number, windowSeconds: number): RateLimitDecision => {
    const now = clock.now();
    const current = windows.get(key);
    if (!current || current.resetAt <= now) {
      if (current) windows.delete(key);
      else if (windows.size >= maxKeys) makeRoom(now);
      windows.set(key, { count: 1, resetAt: now + windowSeconds * 1000 });
      return ALLOWED; // limits are at least 1 (settings schema)
    }
    if (current.count >= limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((current.resetAt - now) / 1000)) };
    }
    current.count++;
    return ALLOWED;
  };

  return {
    consumeNow,
    async consume(key, limit, windowSeconds) {
      return consumeNow(key, limit, windowSeconds);
    },
    async refund(key) {
      const current = windows.get(key);
      if (current && current.count > 0) current.count--;
    },
  };
}
