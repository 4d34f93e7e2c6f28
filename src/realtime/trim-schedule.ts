/**
 * Which project logs this process trims, and when (docs/realtime.md "Limits"): a log is
 * trimmed by a process that wrote to it, at most once per `everyMs`, keeping `keepMs` of
 * entries. All on the injected clock.
 */
import type { Clock } from '../lib/clock.js';

/** Projects written to since their last trim, with the clock time of the first such write. */
export class TrimSchedule {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    private readonly keepMs: number,
  ) {}

  /** This process committed to the project's log. */
  wrote(projectId: string): void {
    if (!this.written.has(projectId)) this.written.set(projectId, this.clock.now());
  }

  /** Projects due for a trim now; each is forgotten until its next write. */
  due(): string[] {
    const now = this.clock.now();
    const due = [...this.written].filter(([, since]) => now - since >= this.everyMs).map(([projectId]) => projectId);
    for (const projectId of due) this.written.delete(projectId);
    return due;
  }

  /** The oldest time (ISO) an entry must have to be kept now. */
  keepFrom(): string {
    return new Date(this.clock.now() - this.keepMs).toISOString();
  }
}
