/**
 * The hub's periodic work (the `: ping` comment, the log poll): started once, stopped on
 * shutdown, and never what keeps the process alive (unref'd).
 */

/** One periodic task. */
export interface Periodic {
  readonly everyMs: number;
  readonly run: () => void;
}

/** A set of intervals that start and stop together. */
export class Intervals {
  private timers: NodeJS.Timeout[] = [];

  /** Starts `tasks`, unless already started. */
  start(tasks: readonly Periodic[]): void {
    if (this.timers.length > 0) return;
    this.timers = tasks.map((task) => setInterval(task.run, task.everyMs).unref());
  }

  /** Stops every task; `start` may start them again. */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /** Whether the tasks run. */
  get running(): boolean {
    return this.timers.length > 0;
  }
}
