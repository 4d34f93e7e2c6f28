/**
 * One process per SQLite data folder: an exclusive lock held for the life of a server (or of a
 * CLI command that writes). The lock is SQLite's own: a write transaction left open on the
 * sentinel database `rowbase.lock` (a RESERVED lock, i.e. a POSIX record lock), which a second
 * process, or a second connection in this process, cannot take. The kernel drops it when the
 * holder exits, even on SIGKILL, so a crash leaves no stale lock. Who holds it is written to
 * `rowbase.pid` (PID, command, time) for the refusal message; that file is informational only.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DataDirInUseError, type DataDirHolder } from '../data-dir-in-use.js';

/** A held data-folder lock. */
export interface DataDirLock {
  /** Releases the lock (and removes the holder file if it is still ours). Never throws; idempotent. */
  release(): void;
}

export const LOCK_FILE = 'rowbase.lock';
export const HOLDER_FILE = 'rowbase.pid';

/**
 * Takes the data folder for `command` (e.g. "rowbase serve"), creating the folder if needed.
 * Throws DataDirInUseError, naming the holder, when another process or server holds it.
 * Never open `rowbase.lock` with fs calls in this process: closing any descriptor of the file
 * would drop the process's POSIX locks on it.
 */
export function lockDataDir(dataDir: string, command: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  // timeout 0: a held lock is refused at once rather than waited for.
  const sentinel = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    sentinel.exec('BEGIN IMMEDIATE');
  } catch (error) {
    sentinel.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir, awaitHolder(dataDir));
    throw error;
  }
  const holder: DataDirHolder = { pid: process.pid, command, since: new Date().toISOString() };
  const holderFile = path.join(dataDir, HOLDER_FILE);
  try {
    // Written whole, then renamed: a reader never sees half a file.
    writeFileSync(`${holderFile}.tmp`, `${holder.pid}\n${holder.command}\n${holder.since}\n`);
    renameSync(`${holderFile}.tmp`, holderFile);
  } catch {
    // Only the refusal message of a second process would miss it; the lock itself is held.
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const current = readHolder(dataDir);
      if (current?.pid === holder.pid && current.since === holder.since) rmSync(holderFile, { force: true });
      try {
        sentinel.exec('ROLLBACK');
      } finally {
        sentinel.close();
      }
    },
  };
}

/**
 * The holder's record, waiting up to half a second for it: a holder that has just taken the lock
 * may not have written it yet. Blocks (only a process about to refuse to start waits here).
 */
function awaitHolder(dataDir: string): DataDirHolder | undefined {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; attempt < 10; attempt++) {
    const holder = readHolder(dataDir);
    if (holder) return holder;
    Atomics.wait(pause, 0, 0, 50);
  }
  return undefined;
}

/** The holder recorded in the folder, or undefined when there is none or it is unreadable. */
function readHolder(dataDir: string): DataDirHolder | undefined {
  try {
    const [pid, command, since] = readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8').split('\n');
    const number = Number(pid);
    return Number.isSafeInteger(number) && number > 0 && command && since ? { pid: number, command, since } : undefined;
  } catch {
    return undefined;
  }
}
