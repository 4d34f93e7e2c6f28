/**
 * Waiting out a gap in a feed's numbers (docs/realtime.md "Order"). A number is taken just
 * before its transaction commits, so a number missing below a visible one is nearly always a
 * commit in progress; it is gone for good once every transaction in progress when the gap was
 * first seen has ended (a rollback) and a read after that still does not find it. Where the
 * engine has no horizon (SQLite, where gaps do not happen) a gap is waited out for a while.
 */
import type { Clock } from '../lib/clock.js';

/** Without a horizon, or while a long transaction elsewhere holds it back, how long a gap is waited out. */
export const GAP_GIVE_UP_MS = 10_000;

/** What the watch needs of the project's log and engine (a `Database`, or an in-memory log in tests). */
export interface GapLog {
  /** The number of the first entry after `after`, or undefined when there is none. */
  firstAfter(after: number): Promise<number | undefined>;
  /** The engine's transaction horizon now (PostgreSQL only). */
  transactionHorizon?(): Promise<string>;
  /** True once no transaction older than `horizon` is still in progress. */
  hasSettled?(horizon: string): Promise<boolean>;
}

/** A gap judged final: the feed's cursor moves to `cursor`; `skipped` when numbers were given up on by time alone. */
export interface GapVerdict {
  readonly cursor: number;
  readonly skipped: boolean;
}

/** Told once per gap, the first time a look after its first sight finds it still open. */
export type OnHold = (gap: { readonly at: number; readonly next: number }) => void;

/** The gap one feed is waiting at, if any, on the injected clock. */
export class GapWatch {
  private gap:
    | { readonly at: number; readonly since: number; readonly horizon: string | undefined; held: boolean }
    | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly giveUpMs = GAP_GIVE_UP_MS,
    private readonly onHold?: OnHold,
  ) {}

  /** The feed moved on: no gap is pending. */
  clear(): void {
    this.gap = undefined;
  }

  /**
   * Judges the gap from `cursor + 1` to `next - 1`: undefined while it may still fill (the
   * first sight of a gap only records it; the first look after that to find it open tells
   * `onHold`), else where the cursor goes.
   */
  async judge(cursor: number, next: number, log: GapLog): Promise<GapVerdict | undefined> {
    const at = cursor + 1;
    if (this.gap?.at !== at) {
      this.gap = {
        at,
        since: this.clock.now(),
        horizon: log.transactionHorizon ? await log.transactionHorizon() : undefined,
        held: false,
      };
      return undefined;
    }
    const gap = this.gap;
    const { horizon, since } = gap;
    // The horizon is cluster-wide: a long write transaction anywhere (another project, a migration)
    // holds it back, so an old gap is given up too (a number is taken by the last statement before
    // COMMIT: a commit still under way after that long is not expected).
    const timedOut = this.clock.now() - since > this.giveUpMs;
    const settled = timedOut || (horizon !== undefined && log.hasSettled ? await log.hasSettled(horizon) : false);
    if (!settled) {
      if (!gap.held) this.onHold?.({ at, next });
      gap.held = true;
      return undefined;
    }
    const found = await log.firstAfter(cursor);
    if (found === at) return { cursor, skipped: false };
    return { cursor: (found ?? next) - 1, skipped: timedOut };
  }
}
