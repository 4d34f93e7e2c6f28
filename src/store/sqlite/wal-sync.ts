/**
 * Durability of `synchronous=FULL` without its fsync on the event loop. SQLite runs with
 * `synchronous=NORMAL` (commits append to the WAL without an fsync; the WAL's checksums keep the
 * file consistent whatever a power loss cuts off), and a committing caller awaits `durable()`
 * before answering: an fdatasync of the WAL on libuv's thread pool. One fsync covers every
 * frame written before it starts, so commits that wait together share one (group commit), and
 * other requests run on the event loop while the disk works.
 */
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export class WalSync {
  private handle: Promise<FileHandle> | undefined;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private waiting = 0;
  private closed = false;
  /** Set by the first failed sync: after it nothing is reported durable again (see `durable`). */
  private failure: Error | undefined;

  /** `databaseFile` is the SQLite file; its WAL is `<databaseFile>-wal`. `onSynced` counts finished syncs. */
  constructor(
    private readonly databaseFile: string,
    private readonly onSynced: () => void = noop,
  ) {}

  /** True while a caller waits for a sync: the connection must stay open until it is answered. */
  get busy(): boolean {
    return this.waiting > 0;
  }

  /**
   * Resolves once every WAL frame committed before the call is on disk. Rejects for good after
   * one sync failed: Linux may mark the lost pages clean, so a later sync could succeed without
   * those frames, and WAL recovery stops at the first broken frame (so later commits would be
   * lost with them). Such a process must be restarted; SQLite recovers the WAL on open.
   */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.waiting++;
    return this.nextSync().finally(() => this.waiting--);
  }

  /**
   * Forgets the WAL file; called when the connection closes (closing the last connection
   * checkpoints the WAL into the database file, synced, and deletes it, so every commit is on
   * disk and callers still waiting resolve without a sync). Syncs in flight finish first;
   * resolves once the file is closed.
   */
  async reset(): Promise<void> {
    this.closed = true;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.then((h) => h.close()).catch(noop);
  }

  private nextSync(): Promise<void> {
    // A sync that is already running may have started before the caller's commit: wait for the next one.
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    this.queued = this.running.then(noop, noop).then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<void> {
    const sync: Promise<void> = this.syncOnce().finally(() => {
      if (this.running === sync) this.running = null;
    });
    this.running = sync;
    return sync;
  }

  private async syncOnce(): Promise<void> {
    if (this.closed) return;
    if (this.failure) throw this.failure;
    this.handle ??= this.openWal();
    let handle: FileHandle;
    try {
      handle = await this.handle;
    } catch (error) {
      this.handle = undefined; // nothing was synced or lost: try again on the next commit
      throw error;
    }
    try {
      await handle.datasync();
    } catch (error) {
      this.failure = new Error(
        `fdatasync of ${this.databaseFile}-wal failed; writes are no longer acknowledged until the server restarts`,
        { cause: error },
      );
      throw this.failure;
    }
    this.onSynced();
  }

  private async openWal(): Promise<FileHandle> {
    const handle = await open(`${this.databaseFile}-wal`, 'r');
    // The WAL may have just been created: its directory entry must be on disk too.
    const directory = await open(path.dirname(this.databaseFile), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return handle;
  }
}

function noop(): void {}
