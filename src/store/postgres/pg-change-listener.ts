/**
 * The engine's view of changes made by other processes, on the reusable LISTEN connection
 * (`pg-listen-connection.ts`). Caches compare the committed change counter of a schema
 * (`PgDatabase.externalChangeVersion`); this listener adds two things to it:
 *
 * - `sync()`: a write waits until its change notification has gone round, so other
 *   processes (which receive the same queue) see it before the client can ask them.
 * - `epoch`: a number that grows whenever this process may have lost track of the database,
 *   that is, when the LISTEN connection was lost or a pooled connection failed. The database
 *   a process reconnects to may not be the one it left (a failover to a replica, a restore
 *   from backup) and its counters may then repeat old values; a new epoch makes every cache
 *   reload once after an outage instead of trusting them.
 */
import { randomBytes } from 'node:crypto';
import { ListenConnection } from './pg-listen-connection.js';
import { CHANGE_CHANNEL } from './pg-migrations.js';

const SYNC_TIMEOUT_MS = 2_000;
const SYNC_PREFIX = 'sync:';

export interface ChangeListenerOptions {
  readonly connectionString: string;
  /** Called with connection errors (for logs); never throws. */
  readonly onError?: (error: unknown) => void;
}

/** Change tracking for one engine: one LISTEN connection, reconnecting until closed. */
export class ChangeListener {
  /** The LISTEN connection; other features (realtime) may register their own channels on it. */
  readonly connection: ListenConnection;
  private epochValue = 0;
  // Bounded by the writes in flight that wait for their echo (each entry is removed on arrival or timeout).
  private readonly waiting = new Map<string, () => void>();

  constructor(options: ChangeListenerOptions) {
    this.connection = new ListenConnection(options);
    this.connection.onLost(() => {
      this.noteConnectionFailure();
      // Nobody will echo the markers of writes waiting now: let them go.
      for (const token of [...this.waiting.keys()]) this.resolveSync(token);
    });
    this.connection.onReconnect(() => this.noteConnectionFailure());
  }

  /** Connects and starts listening; throws when the first connection fails. */
  async start(): Promise<void> {
    await this.connection.listen(CHANGE_CHANNEL, (payload) => {
      if (payload.startsWith(SYNC_PREFIX)) this.resolveSync(payload);
    });
    await this.connection.start();
  }

  /** Grows whenever cached state may no longer match the database (see the file comment). */
  get epoch(): number {
    return this.epochValue;
  }

  /** Records that a connection to the database failed: caches reload on their next use. */
  noteConnectionFailure(): void {
    this.epochValue++;
  }

  /**
   * Resolves once this listener has received every notification committed before the call:
   * it sends a marker through the same queue and waits for it (at most two seconds). A write
   * that waits for this before answering lets other processes, which receive the queue at the
   * same moment, see it before the client can ask them.
   */
  async sync(notify: (channel: string, payload: string) => Promise<void>): Promise<void> {
    if (!this.connection.listening) return;
    const token = `${SYNC_PREFIX}${randomBytes(9).toString('base64url')}`;
    const arrived = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.resolveSync(token), SYNC_TIMEOUT_MS);
      this.waiting.set(token, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      await notify(CHANGE_CHANNEL, token);
    } catch {
      this.resolveSync(token);
    }
    await arrived;
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    for (const token of [...this.waiting.keys()]) this.resolveSync(token);
    await this.connection.close();
  }

  private resolveSync(token: string): void {
    const done = this.waiting.get(token);
    this.waiting.delete(token);
    done?.();
  }
}
