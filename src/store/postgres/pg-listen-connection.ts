/**
 * One dedicated PostgreSQL connection that LISTENs on channels and stays up by itself: when
 * the connection is lost (the server restarted, a network fault, an idle timeout) it
 * reconnects with capped exponential backoff, LISTENs again on every channel, and tells its
 * subscribers through `onReconnect` that notifications sent meanwhile were missed, so each
 * can catch up in its own way (the change counter invalidates caches; a realtime feed would
 * reload from its event log).
 *
 * Reusable on purpose: anything that needs PostgreSQL notifications (today the change
 * listener, `pg-change-listener.ts`) registers a channel here instead of owning a
 * connection and its reconnect loop.
 */
import pg from 'pg';
import { quoteIdent } from '../sql-compiler.js';
import { CLOSE_TIMEOUT_MS, destroySocket, settlesWithin } from './pg-pool.js';
import { PG_TYPE_PARSERS } from './pg-types.js';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;
// A connection whose peer vanished without a word (a failover, a long partition: no RST ever
// comes) looks alive until TCP keepalive gives up, after the system default of two hours and
// more. Meanwhile every watched write waits its full sync timeout and notifications are
// missed. An idle LISTEN connection therefore asks the server something now and then.
const HEARTBEAT_INTERVAL_MS = 10_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;

export interface ListenConnectionOptions {
  readonly connectionString: string;
  /** Called with connection errors (for logs); never throws. */
  readonly onError?: (error: unknown) => void;
}

type NotificationHandler = (payload: string) => void;

/** A LISTEN connection that reconnects until closed. */
export class ListenConnection {
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private readonly lostHandlers = new Set<() => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private backoff = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private hasBeenConnected = false;

  constructor(private readonly options: ListenConnectionOptions) {}

  /** True while connected and listening on every registered channel. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Connects (LISTENing on the channels registered so far); throws when the first attempt fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  /**
   * Delivers the payloads sent on `channel` to `handler`, from now on and after every
   * reconnect. Resolves once the LISTEN is in place (at once while disconnected: the
   * reconnect issues it). Returns a function that removes the handler.
   */
  async listen(channel: string, handler: NotificationHandler): Promise<() => void> {
    const existing = this.handlers.get(channel);
    const isNew = existing === undefined;
    const set = existing ?? new Set<NotificationHandler>();
    if (isNew) this.handlers.set(channel, set);
    set.add(handler);
    if (isNew && this.client)
      await this.client.query(`LISTEN ${quoteIdent(channel)}`).catch((error: unknown) => this.options.onError?.(error));
    return () => {
      set.delete(handler);
    };
  }

  /** Calls `handler` after each reconnect (not the first connect): notifications may have been missed meanwhile. */
  onReconnect(handler: () => void): void {
    this.reconnectHandlers.add(handler);
  }

  /** Calls `handler` when the connection is lost (before reconnecting starts). */
  onLost(handler: () => void): void {
    this.lostHandlers.add(handler);
  }

  /** Stops listening and reconnecting, and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stopHeartbeat();
    const client = this.client;
    this.client = null;
    if (!client) return;
    // A server that does not answer never acknowledges the end: close the socket ourselves.
    const ended = client.end().catch(() => undefined);
    if (!(await settlesWithin(ended, CLOSE_TIMEOUT_MS))) destroySocket(client);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      types: PG_TYPE_PARSERS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // TCP keepalive (hours with system defaults) backs up the heartbeat below.
      keepAlive: true,
      application_name: 'rowbase-listen',
      // Bounds the heartbeat (and LISTEN) on a server that stopped answering.
      query_timeout: HEARTBEAT_TIMEOUT_MS,
    });
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.hasBeenConnected;
    this.client = client;
    this.hasBeenConnected = true;
    this.backoff = RECONNECT_MIN_MS;
    this.startHeartbeat(client);
    if (reconnected) for (const handler of this.reconnectHandlers) handler();
  }

  /**
   * Every HEARTBEAT_INTERVAL_MS, a trivial query that must answer
   * within HEARTBEAT_TIMEOUT_MS, or the connection counts as lost.
   */
  private startHeartbeat(client: pg.Client): void {
    this.stopHeartbeat();
    let inFlight = false;
    this.heartbeatTimer = setInterval(() => {
      if (inFlight || this.client !== client) return;
      inFlight = true;
      client
        .query('SELECT 1')
        .then(
          () => undefined,
          (error: unknown) => this.lost(client, error),
        )
        .finally(() => (inFlight = false));
    }, HEARTBEAT_INTERVAL_MS);
    // The heartbeat alone must not keep a process alive.
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return; // a connection that never became the listener, or already handled
    if (error !== undefined) this.options.onError?.(error);
    this.client = null;
    this.stopHeartbeat();
    client.end().catch(() => undefined);
    for (const handler of this.lostHandlers) handler();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.connect().catch((reason: unknown) => {
        this.options.onError?.(reason);
        this.backoff = Math.min(this.backoff * 2, RECONNECT_MAX_MS);
        this.scheduleReconnect();
      });
    }, this.backoff);
    // Reconnecting alone must not keep a process alive.
    this.reconnectTimer.unref();
  }
}
