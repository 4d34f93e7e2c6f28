/**
 * Waiting for a condition instead of sleeping for a guess: `eventually` polls until `check`
 * returns something other than undefined or false (and does not throw), or fails the test
 * with what it last saw once `timeoutMs` has passed. The one deadline loop of the tests.
 */
import assert from 'node:assert/strict';

/** How `eventually` waits. */
export interface EventuallyOptions {
  /** Give up after this long (default 5 s). */
  readonly timeoutMs?: number;
  /** Pause between checks (default 25 ms). */
  readonly everyMs?: number;
  /** What the test waited for, for the failure message. */
  readonly what?: string;
}

/**
 * Resolves with the first result of `check` that is neither undefined nor false. A check that
 * throws counts as not yet; at the deadline its last error (or last result) is in the failure.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const { timeoutMs = 5_000, everyMs = 25, what = 'a condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const result = await check();
      if (result !== undefined && result !== false) return result as Exclude<T, undefined | false>;
      last = result;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      assert.fail(
        `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ` +
          `${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
