/**
 * The rate-limiting port. Counters live behind it so that one process can keep them in
 * memory while several processes share them (PostgreSQL or Redis, issue 4). Async on
 * purpose: the shared implementations need I/O.
 */

/** The answer to one hit: allowed, or how long to wait. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Whole seconds until the window that refused the hit ends (0 when allowed). */
  readonly retryAfterSeconds: number;
}

/** Counts hits per key in fixed windows. */
export interface RateLimiter {
  /**
   * Counts one hit against `key`, allowing at most `limit` hits per `windowSeconds`.
   * A refused hit is not counted, so hammering a closed window does not extend it.
   */
  consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /**
   * `consume` answered at once, by limiters that decide without I/O (memory): a request under
   * its limit then goes on in the same turn, with no promise (the data API's GET path).
   */
  consumeNow?(key: string, limit: number, windowSeconds: number): RateLimitDecision;
  /** Takes back one counted hit of `key` (for example a login attempt that succeeded). */
  refund(key: string): Promise<void>;
  /** Releases connections, for implementations that hold their own (Redis). */
  close?(): Promise<void>;
}
