/**
 * The engine's connection pool and how a client is checked out of it. Every wait is bounded,
 * so a database that is down, restarting or overloaded turns into a quick StoreError
 * ('unavailable' or 'busy', answered 503) instead of a request that hangs:
 *
 * - getting a connection (waiting for a free one, or opening one): `poolTimeoutMs`;
 * - one statement: `statementTimeoutMs` on the server (`statement_timeout`), and the same
 *   plus 2 s on the client, for a server that stopped answering altogether (a hung machine);
 * - a transaction left open by a crashed request: 60 s (`idle_in_transaction_session_timeout`).
 */
import pg from 'pg';
import { translatePgError } from './pg-errors.js';
import { PG_TYPE_PARSERS } from './pg-types.js';

/** How long past the server's statement timeout the client gives up on a silent server. */
const CLIENT_TIMEOUT_MARGIN_MS = 2_000;
/** How long closing waits for the server to acknowledge the end of each connection. */
export const CLOSE_TIMEOUT_MS = 2_000;

// The connections of each pool, so closing can cut them when the server does not answer.
const connections = new WeakMap<pg.Pool, Set<pg.Client>>();

export interface PgPoolOptions {
  readonly url: string;
  /** Connections per process. */
  readonly maxConnections: number;
  /** The longest one statement may run, in ms; 0 means no limit. */
  readonly statementTimeoutMs: number;
  /** The longest a caller waits for a connection, in ms. */
  readonly poolTimeoutMs: number;
  /** Receives errors of idle connections (for logs). */
  readonly onError: (error: unknown) => void;
}

/** Builds the pool with the timeouts above. */
export function buildPgPool(options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections,
    types: PG_TYPE_PARSERS,
    connectionTimeoutMillis: options.poolTimeoutMs,
    ...(options.statementTimeoutMs > 0 && {
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    }),
    // A transaction left open by a crashed request must not hold locks forever.
    idle_in_transaction_session_timeout: 60_000,
    // A server that vanished without closing the socket is noticed by TCP keepalive.
    keepAlive: true,
    application_name: 'rowbase',
    // Statements are written without waiting for the answer before: a transaction's BEGIN goes
    // out with its first statement (pg-database.ts). Everything else awaits each statement.
    pipeline: true,
  });
  // An idle client losing its connection emits here; without a listener the process would exit.
  pool.on('error', options.onError);
  const clients = new Set<pg.Client>();
  connections.set(pool, clients);
  // Kept until the socket has really ended: a removed client may still be waiting for the server.
  pool.on('connect', (client) => {
    clients.add(client);
    client.once('end', () => clients.delete(client));
  });
  return pool;
}

/**
 * Ends the pool. pg-pool's end resolves once every client is asked to end, but a connection
 * ends only when the server closes it; a frozen or vanished server never does, and the open
 * sockets would keep the process from exiting after SIGTERM. So whatever has not ended after
 * CLOSE_TIMEOUT_MS is closed on our side. Never throws.
 */
export async function closePgPool(pool: pg.Pool): Promise<void> {
  await settlesWithin(
    pool.end().catch(() => undefined),
    CLOSE_TIMEOUT_MS,
  );
  const open = [...(connections.get(pool) ?? [])];
  const ended = Promise.all(open.map((client) => new Promise((resolve) => client.once('end', resolve))));
  if (!(await settlesWithin(ended, CLOSE_TIMEOUT_MS))) for (const client of open) destroySocket(client);
}

/** Closes a client's socket without waiting for the server. */
export function destroySocket(client: pg.Client): void {
  client.connection.stream.destroy();
}

/** True when `promise` settled within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A checked-out client and the one way to give it back. */
export interface CheckedOut {
  readonly client: pg.PoolClient;
  /** Returns the client to the pool, or discards it when `broken` is given or its connection failed. */
  release(broken?: unknown): void;
}

/**
 * Checks a client out of the pool. Throws StoreError('unavailable'|'busy') when none can be
 * had within the pool timeout.
 *
 * While a client is checked out, pg-pool listens to none of its errors; a connection that
 * dies between two statements (the server restarted while a request ran other code) would
 * emit an unhandled 'error' and end the process. The guard below takes that error; the next
 * statement on the client then fails, and the client is discarded on release.
 */
export async function checkOut(pool: pg.Pool): Promise<CheckedOut> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translatePgError(error);
  }
  let failed: Error | undefined;
  const guard = (error: Error): void => {
    failed ??= error;
  };
  client.on('error', guard);
  let released = false;
  return {
    client,
    release(broken) {
      if (released) return;
      released = true;
      client.removeListener('error', guard);
      const reason = broken instanceof Error ? broken : broken !== undefined ? new Error(String(broken)) : failed;
      client.release(reason);
    },
  };
}
