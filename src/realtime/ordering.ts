/**
 * Commit order for one feed (docs/realtime.md "Order"): events leave in number order, each
 * once, and one step of the feed (a commit of this process, a wake-up, the poll) runs at a time.
 */
import type { LoggedEvent } from '../changes/event-log.js';

/**
 * The events of `events` (ascending numbers) that are next in line after `cursor`: those at or
 * below it were delivered already and are skipped; the run from `cursor + 1` on ends at the
 * first missing number, since nothing after a gap may go first.
 */
export function nextInLine(cursor: number, events: readonly LoggedEvent[]): LoggedEvent[] {
  const run: LoggedEvent[] = [];
  let next = cursor + 1;
  for (const event of events) {
    if (event.seq < next) continue;
    if (event.seq !== next) break;
    run.push(event);
    next++;
  }
  return run;
}

/**
 * The steps of one feed, run one after another. A failed step is reported and the next one
 * runs all the same (the poll retries what it missed). A read of the log asked for while one
 * is already waiting to run is the same read: `drainOnce` queues it once.
 */
export class FeedQueue {
  private chain: Promise<void> = Promise.resolve();
  private drainWaiting = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Runs `step` after every step queued before it. */
  run(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch(this.onError);
  }

  /** Runs `drain` after the queued steps, unless a drain queued earlier has not started yet. */
  drainOnce(drain: () => Promise<void>): void {
    if (this.drainWaiting) return;
    this.drainWaiting = true;
    this.run(async () => {
      this.drainWaiting = false;
      await drain();
    });
  }

  /** Resolves once every step queued so far has run. */
  idle(): Promise<void> {
    return this.chain;
  }
}
