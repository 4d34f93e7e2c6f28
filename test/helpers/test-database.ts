/**
 * The engine switch of the test suite. With `ROWBASE_TEST_ENGINE=postgres` every test server
 * gets a fresh PostgreSQL database on the server of TEST_DATABASE_URL (created through its
 * `postgres` maintenance database, dropped when the server closes). Names start with
 * ROWBASE_TEST_DB_PREFIX, which `scripts/run-tests.mjs` sets per run so it can drop leftovers.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The engine the HTTP suite runs on in this process. */
export function testEngine(): 'sqlite' | 'postgres' {
  return process.env.ROWBASE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
}

/** TEST_DATABASE_URL, or the local default. */
export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
}

/** The same server's URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function maintenance<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: withDatabase(testDatabaseUrl(), 'postgres'),
    connectionTimeoutMillis: 3000,
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** True when the PostgreSQL server of TEST_DATABASE_URL answers. */
export async function isPostgresReachable(): Promise<boolean> {
  try {
    await maintenance((client) => client.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

function prefix(): string {
  const value = process.env.ROWBASE_TEST_DB_PREFIX || 'rowbase_t_';
  if (!/^[a-z0-9_]{1,40}$/.test(value)) throw new Error(`ROWBASE_TEST_DB_PREFIX must be [a-z0-9_]{1,40}, not ${value}`);
  return value;
}

/**
 * Creates a fresh database. With `key` (a test's own data folder, reused across restarts of
 * a server) the name is derived from it and an existing database is reused.
 */
export async function createTestDatabase(key?: string): Promise<TestDatabase> {
  const suffix =
    key === undefined ? randomBytes(8).toString('hex') : createHash('sha256').update(key).digest('hex').slice(0, 16);
  const name = `${prefix()}${suffix}`;
  await maintenance(async (client) => {
    const exists = (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    // template0: nobody ever connects to it, so parallel test files never block each other's CREATE.
    if (!exists) await client.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
  });
  return {
    name,
    url: withDatabase(testDatabaseUrl(), name),
    drop: () => dropDatabase(name),
  };
}

/** Drops one test database, ending connections that are still open. */
export async function dropDatabase(name: string): Promise<void> {
  await maintenance((client) => client.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`));
}

/** Drops every database whose name starts with `namePrefix` (leftovers of a run). */
export async function dropDatabasesWithPrefix(namePrefix: string): Promise<number> {
  const names = await maintenance(async (client) => {
    const result = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [namePrefix]);
    return result.rows.map((row: { datname: string }) => row.datname);
  });
  for (const name of names) await dropDatabase(name);
  return names.length;
}
