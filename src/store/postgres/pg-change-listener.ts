/**
 * Listens for the change notifications the schema triggers send (`pg-migrations.ts`) on one
 * dedicated connection and turns them into version numbers that caches compare
 * (`externalChangeVersion()`). Versions are kept in a fixed number of buckets by schema name,
 * so memory stays bounded however many projects exist; a shared bucket only costs a reload.
 *
 * While the connection is down a change could be missed, so every call then returns a new
 * number (caches reload on each use) until it is back; reconnecting bumps every bucket.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CHANGE_CHANNEL } from './pg-migrations.js';
import { PG_TYPE_PARSERS } from './pg-types.js';

const BUCKETS = 256;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;
const SYNC_TIMEOUT_MS = 2_000;
const SYNC_PREFIX = 'sync:';

export interface ChangeListenerOptions {
  readonly connectionString: string;
  /** Called with connection errors (for logs); never throws. */
  readonly onError?: (error: unknown) => void;
}

function bucketOf(schema: string): number {
  let hash = 0;
  for (let i = 0; i < schema.length; i++) hash = (hash * 31 + schema.charCodeAt(i)) >>> 0;
  return hash % BUCKETS;
}

/** One LISTEN connection per engine, reconnecting with backoff until closed. */
export class ChangeListener {
  private readonly versions = new Uint32Array(BUCKETS);
  private client: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private unsynced = 0;
  private backoff = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;
  // Bounded by the writes in flight that wait for their echo (each entry is removed on arrival or timeout).
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly options: ChangeListenerOptions) {}

  /** Connects and starts listening; throws when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** The version of a schema: changes after every notified change there, and on every call while not listening. */
  version(schema: string): number {
    if (!this.listening) return 0x1_0000_0000 + ++this.unsynced;
    return this.versions[bucketOf(schema)]!;
  }

  /**
   * Resolves once this listener has received every notification committed before the call:
   * it sends a marker through the same queue and waits for it (at most two seconds). A write
   * that waits for this before answering lets other processes, which receive the queue at the
   * same moment, see it before the client can ask them.
   */
  async sync(notify: (channel: string, payload: string) => Promise<void>): Promise<void> {
    if (!this.listening) return;
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
    this.closed = true;
    this.listening = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const token of [...this.waiting.keys()]) this.resolveSync(token);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private resolveSync(token: string): void {
    const done = this.waiting.get(token);
    this.waiting.delete(token);
    done?.();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString, types: PG_TYPE_PARSERS });
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (payload.startsWith(SYNC_PREFIX)) this.resolveSync(payload);
      else this.versions[bucketOf(payload)] = (this.versions[bucketOf(payload)]! + 1) >>> 0;
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Changes may have happened while nobody listened: everything counts as changed.
    for (let i = 0; i < BUCKETS; i++) this.versions[i] = (this.versions[i]! + 1) >>> 0;
    this.listening = true;
    this.backoff = RECONNECT_MIN_MS;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return; // a connection that never became the listener
    if (error !== undefined) this.options.onError?.(error);
    this.listening = false;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed || this.reconnectTimer) return;
    const retry = (): void => {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        if (this.closed) return;
        this.connect().catch((reason: unknown) => {
          this.options.onError?.(reason);
          this.backoff = Math.min(this.backoff * 2, RECONNECT_MAX_MS);
          retry();
        });
      }, this.backoff);
      this.reconnectTimer.unref();
    };
    retry();
  }
}
