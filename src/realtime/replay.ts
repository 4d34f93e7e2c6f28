/**
 * Resuming a stream from `since` (contract §11, docs/realtime.md "Resume"): whether the kept
 * log still reaches back to it, and reading the entries after it in order, page by page.
 */
import type { LoggedEvent, LogState } from '../changes/event-log.js';

/** Entries read per page of a replay. */
export const REPLAY_PAGE = 500;

/**
 * The number a replay starts after, or undefined when the client must reload instead (`reset`):
 * `since` malformed, trimmed away, or past the log's head (another server's numbers, or a log
 * that was reset).
 */
export function resumePoint(since: string, log: LogState): number | undefined {
  const after = /^(0|[1-9][0-9]{0,15})$/.test(since) ? Number(since) : undefined;
  if (after === undefined || after < log.trimmedThrough || after > log.lastSeq) return undefined;
  return after;
}

/** Reads entries after `after` (a `Database` through `readEvents`, or an in-memory log in tests). */
export type EventPages = (after: number, limit: number) => Promise<readonly LoggedEvent[]>;

/**
 * Hands `deliver` every entry numbered from `after + 1` to `until`, in order, one at a time.
 * Stops early, returning false, as soon as `current()` is false (a later subscription call of
 * the client took over); else, once it reached `until` or the end of the log, whether it is still current.
 */
export async function replayRange(
  read: EventPages,
  after: number,
  until: number,
  deliver: (event: LoggedEvent) => Promise<void>,
  current: () => boolean,
  page = REPLAY_PAGE,
): Promise<boolean> {
  let last = after;
  while (last < until) {
    const events = await read(last, page);
    for (const event of events) {
      if (!current()) return false;
      if (event.seq > until) return current();
      await deliver(event);
      last = event.seq;
    }
    if (events.length < page) break;
  }
  return current();
}
