/**
 * An in-memory event log and a hand-moved clock for the realtime hub's unit tests
 * (test/unit/realtime/): numbers can be left out (a commit in progress) and filled later.
 */
import type { Clock } from '../../src/lib/clock.js';
import type { GapLog } from '../../src/realtime/gap-watch.js';

/** A clock that moves only when told. */
export class ManualClock implements Clock {
  constructor(private ms = 1_700_000_000_000) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Committed entry numbers, and the transactions a horizon still waits for. */
export class MemoryLog implements GapLog {
  private readonly seqs = new Set<number>();
  /** Horizons handed out; a horizon is settled once `settle` was called after it was taken. */
  private horizons = 0;
  private settledThrough = 0;

  constructor(private readonly withHorizon = true) {}

  /** Commits entries with these numbers. */
  commit(...seqs: number[]): void {
    for (const seq of seqs) this.seqs.add(seq);
  }

  /** Every transaction in progress so far has ended. */
  settle(): void {
    this.settledThrough = this.horizons;
  }

  async firstAfter(after: number): Promise<number | undefined> {
    const later = [...this.seqs].filter((seq) => seq > after);
    return later.length === 0 ? undefined : Math.min(...later);
  }

  get transactionHorizon(): (() => Promise<string>) | undefined {
    return this.withHorizon ? async () => String(++this.horizons) : undefined;
  }

  get hasSettled(): ((horizon: string) => Promise<boolean>) | undefined {
    return this.withHorizon ? async (horizon) => Number(horizon) <= this.settledThrough : undefined;
  }
}
