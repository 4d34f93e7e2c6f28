/**
 * What a server under test logged, for tests that wait for a state the server reports only in
 * its log (at debug level): the realtime feed holding events behind a number still committing.
 * An in-process server writes to a `LogCapture` (buildApp's `logStream`); a server process's
 * JSON lines are its `output()`.
 */

/** One JSON log entry (pino's fields: level, time, msg, and the entry's own). */
export interface LogEntry {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Keeps an in-process server's log lines; pass it as `logStream` with LOG_LEVEL set. */
export class LogCapture {
  private text = '';

  write(line: string): void {
    this.text += line;
  }

  /** Everything logged so far. */
  output(): string {
    return this.text;
  }
}

/** The JSON entries in `text`, one a line; other lines (a stack trace, a banner) are skipped. */
export function logEntries(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      entries.push(JSON.parse(line) as LogEntry);
    } catch {
      // a line cut short by the end of the output so far
    }
  }
  return entries;
}

/**
 * Whether the project's realtime feed logged that it holds `next` back behind `at`, a number
 * still committing (realtime-hub.ts, at debug level): it read the later event and judged the
 * gap still open, so an event that did not arrive by then was withheld, not merely late.
 */
export function heldBehind(text: string, project: string, at: number, next: number): boolean {
  return logEntries(text).some(
    (entry) =>
      entry.msg.startsWith('realtime: holding event') &&
      entry.project === project &&
      entry.at === at &&
      entry.next === next,
  );
}
