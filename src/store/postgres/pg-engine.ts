/**
 * The PostgreSQL engine: the system schema `rowbase` plus one schema per project, all in one
 * database behind one connection pool, and one extra connection that LISTENs for changes made
 * by other processes. Several server processes may share the database.
 *
 * Table names are schema-qualified in every statement rather than switched with
 * `search_path`: a pooled connection then never carries state from one request to the next,
 * and no statement costs an extra round trip.
 */
import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import { quoteIdent } from '../sql-compiler.js';
import { PLATFORM_SETTINGS, PROJECT_KEYS, PROJECT_SETTINGS, PROJECTS, TABLE_DEFINITIONS } from '../system-tables.js';
import { StoreError, type StorageEngine } from '../types.js';
import { ChangeCounters } from './pg-change-counters.js';
import { ChangeListener } from './pg-change-listener.js';
import { PgDatabase, type PgDatabaseDeps } from './pg-database.js';
import { explainStartupFailure, isConnectionError, translatePgError } from './pg-errors.js';
import {
  EVENT_CHANNEL,
  lockSchema,
  migrateSchema,
  PROJECT_MIGRATIONS,
  projectSchema,
  SYSTEM_MIGRATIONS,
  SYSTEM_SCHEMA,
} from './pg-migrations.js';
import { buildPostgresRateLimiter, type SharedRateLimiter } from './pg-rate-limiter.js';
import { buildPgPool, checkOut, closePgPool } from './pg-pool.js';

export interface PostgresEngineOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** Pool size per process (default 10). */
  readonly maxConnections?: number;
  /** The longest one statement may run, in ms (default 30,000; 0: no limit). Past it: StoreError('busy'). */
  readonly statementTimeoutMs?: number;
  /**
   * The longest a caller waits for a pooled connection, in ms
   * (default 5,000). Past it: StoreError('busy'|'unavailable').
   */
  readonly poolTimeoutMs?: number;
  /** How many project handles (no connections, just migrated-schema bookkeeping) stay cached (default 10,000). */
  readonly maxOpenProjects?: number;
  /** Receives connection errors of idle clients and of the listener, for logs. */
  readonly onError?: (error: unknown) => void;
}

/** The PostgreSQL engine, plus what only a shared database offers. */
export interface PostgresEngine extends StorageEngine {
  /** Rate-limit counters in the database, shared by every process (the auth RateLimiter shape). */
  buildRateLimiter(clock: Clock): SharedRateLimiter;
}

/** True for an engine built by buildPostgresEngine. */
export function isPostgresEngine(engine: StorageEngine): engine is PostgresEngine {
  return typeof (engine as Partial<PostgresEngine>).buildRateLimiter === 'function';
}

// The system tables whose changes other processes' caches (project registry) depend on.
const WATCHED_SYSTEM_TABLES = new Set(
  [PROJECTS, PROJECT_KEYS, PROJECT_SETTINGS, PLATFORM_SETTINGS].map((t) => t.table),
);
// The project table whose changes other processes' schema caches depend on.
const WATCHED_PROJECT_TABLES = new Set([TABLE_DEFINITIONS.table]);

/**
 * Connects, migrates the system schema (under an advisory lock, so processes starting
 * together do not race) and starts listening for changes. Throws StorageStartError
 * (saying what to do) when the database cannot be opened.
 */
export async function buildPostgresEngine(options: PostgresEngineOptions): Promise<PostgresEngine> {
  const onError = options.onError ?? (() => undefined);
  const poolTimeoutMs = options.poolTimeoutMs ?? 5_000;
  const listener = new ChangeListener({ connectionString: options.url, onError });
  const pool = buildPgPool({
    url: options.url,
    maxConnections: options.maxConnections ?? 10,
    statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
    poolTimeoutMs,
    onError: (error) => {
      // An idle connection died: the server restarted or went away. Caches reload once it is back.
      listener.noteConnectionFailure();
      onError(error);
    },
  });
  try {
    await withClient(pool, (client) =>
      migrateSchema(client, SYSTEM_SCHEMA, SYSTEM_MIGRATIONS, { createIfMissing: true }),
    );
    await listener.start();
  } catch (error) {
    await listener.close();
    await pool.end().catch(() => undefined);
    throw explainStartupFailure(error, options.url);
  }

  const counters = new ChangeCounters(pool, (error) => {
    if (isConnectionError(error)) listener.noteConnectionFailure();
  });
  const systemDeps: PgDatabaseDeps = { pool, listener, counters, watched: WATCHED_SYSTEM_TABLES };
  const projectDeps: PgDatabaseDeps = { pool, listener, counters, watched: WATCHED_PROJECT_TABLES };
  const system = new PgDatabase(SYSTEM_SCHEMA, systemDeps);
  const maxOpen = options.maxOpenProjects ?? 10_000;
  // Projects whose schema this process has migrated; least recently used first.
  const open = new Map<string, PgDatabase>();
  let closed = false;

  const remember = (projectId: string, db: PgDatabase): PgDatabase => {
    open.delete(projectId);
    open.set(projectId, db);
    if (open.size > maxOpen) open.delete(open.keys().next().value!);
    return db;
  };
  const ensureOpen = (): void => {
    if (closed) throw new StoreError('unavailable', 'storage is closed');
  };

  return {
    capabilities: { name: 'postgres', sharedAcrossProcesses: true },
    eventWakeups: {
      onEvents(handler) {
        // The payload is the schema; project ids hold no `_`, so `p_my_app` is project `my-app`.
        void listener.connection
          .listen(EVENT_CHANNEL, (schema) => {
            if (schema.startsWith('p_')) handler(schema.slice(2).replaceAll('_', '-'));
          })
          .catch(() => undefined);
      },
      onReconnect(handler) {
        listener.connection.onReconnect(handler);
      },
    },
    system,
    async createProject(projectId) {
      ensureOpen();
      const schema = projectSchema(projectId);
      await withClient(pool, (client) => migrateSchema(client, schema, PROJECT_MIGRATIONS, { createIfMissing: true }));
      remember(projectId, new PgDatabase(schema, projectDeps));
    },
    async project(projectId) {
      ensureOpen();
      const cached = open.get(projectId);
      if (cached) return remember(projectId, cached);
      const schema = projectSchema(projectId);
      const exists = await withClient(pool, (client) =>
        migrateSchema(client, schema, PROJECT_MIGRATIONS, { createIfMissing: false }),
      );
      if (!exists) throw new Error(`project ${projectId} has no storage`);
      return remember(projectId, new PgDatabase(schema, projectDeps));
    },
    async dropProject(projectId) {
      ensureOpen();
      const schema = projectSchema(projectId);
      open.delete(projectId);
      await withClient(pool, async (client) => {
        await client.query('BEGIN');
        try {
          await lockSchema(client, schema);
          await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    },
    buildRateLimiter(clock) {
      return buildPostgresRateLimiter(pool, clock);
    },
    async ping() {
      if (closed) return false;
      try {
        // Bounded even with PG_STATEMENT_TIMEOUT_MS=0: /health must answer while the server hangs.
        await pool.query({ text: 'SELECT 1', query_timeout: poolTimeoutMs } as pg.QueryConfig);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      open.clear();
      await listener.close();
      await closePgPool(pool);
    },
  };
}

/** Runs `use` on a pooled client, translating errors; a client whose connection broke is discarded. */
async function withClient<T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  let failure: unknown;
  try {
    return await use(client);
  } catch (error) {
    failure = error;
    throw translatePgError(error);
  } finally {
    const translated = translatePgError(failure);
    release(translated instanceof StoreError && translated.kind === 'unavailable' ? failure : undefined);
  }
}
