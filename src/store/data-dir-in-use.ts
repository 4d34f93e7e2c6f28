/**
 * The refusal to open a SQLite data folder that another process (or another server in this
 * process) holds: one process per data folder, because caches, rate-limit counters and the
 * mail worker live in the process. PostgreSQL storage has no such lock.
 */

/** Who holds a data folder, as the holder recorded it (absent when it could not be read). */
export interface DataDirHolder {
  readonly pid: number;
  /** What holds it, e.g. "rowbase serve" or "rowbase import". */
  readonly command: string;
  /** ISO time the holder took the folder. */
  readonly since: string;
}

/** Thrown when the data folder is held by another process; carries the folder and the holder. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder | undefined,
  ) {
    const who = holder
      ? `${holder.command} (PID ${holder.pid}, since ${holder.since})`
      : 'another rowbase process (PID unknown)';
    super(`the data folder ${dataDir} is in use by ${who}; only one process may use a SQLite data folder at a time.`);
    this.name = 'DataDirInUseError';
  }
}
