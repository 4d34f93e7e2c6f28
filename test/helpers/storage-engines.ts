/**
 * The engines the storage contract suite runs on: SQLite always, PostgreSQL when the server of
 * TEST_DATABASE_URL answers (or must answer: ROWBASE_REQUIRE_POSTGRES=1 makes its absence a
 * failure rather than a visible skip). Each fixture owns fresh storage and can open a second
 * engine instance on it, standing for another server process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildPostgresEngine } from '../../src/store/postgres/pg-engine.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
import type { StorageEngine } from '../../src/store/types.js';
import type { TableDefinition } from '../../src/schema/definition.js';
import { createTestDatabase, isPostgresReachable, testDatabaseUrl } from './test-database.js';

export interface EngineFixture {
  readonly engine: StorageEngine;
  /** Where the storage lives: SQLite's data folder, or PostgreSQL's database URL (for tests that look inside). */
  readonly storage: { readonly dataDir: string } | { readonly url: string };
  /** Opens another engine on the same storage (as a second process would). */
  another(): Promise<StorageEngine>;
  /** Closes every engine it opened and removes the storage. */
  dispose(): Promise<void>;
}

export interface EngineFactory {
  readonly name: 'sqlite' | 'postgres';
  create(): Promise<EngineFixture>;
}

const sqlite: EngineFactory = {
  name: 'sqlite',
  async create() {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-contract-'));
    const open = () => buildSqliteEngine({ dataDir, synchronous: 'normal', maxOpenProjects: 16 });
    const engines = [open()];
    return {
      engine: engines[0]!,
      storage: { dataDir },
      async another() {
        const engine = open();
        engines.push(engine);
        return engine;
      },
      async dispose() {
        for (const engine of engines) await engine.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: EngineFactory = {
  name: 'postgres',
  async create() {
    const database = await createTestDatabase();
    const open = () => buildPostgresEngine({ url: database.url, maxConnections: 4 });
    const engines = [await open()];
    return {
      engine: engines[0]!,
      storage: { url: database.url },
      async another() {
        const engine = await open();
        engines.push(engine);
        return engine;
      },
      async dispose() {
        for (const engine of engines) await engine.close();
        await database.drop();
      },
    };
  },
};

/**
 * The engines to run on. Without a PostgreSQL server: SQLite only, with a SKIPPED line,
 * unless ROWBASE_REQUIRE_POSTGRES=1 (then the PostgreSQL factory is returned and fails).
 */
export async function contractEngines(): Promise<EngineFactory[]> {
  if (await isPostgresReachable()) return [sqlite, postgres];
  if (process.env.ROWBASE_REQUIRE_POSTGRES === '1') return [sqlite, postgres];
  console.log(`SKIPPED: PostgreSQL storage contract (no server at ${new URL(testDatabaseUrl()).host})`);
  return [sqlite];
}

/** A table definition with one column of every type (none required unless said). */
export function tableOf(
  name: string,
  columns: Partial<TableDefinition['columns'][number]>[],
  extra: Partial<TableDefinition> = {},
): TableDefinition {
  return {
    name,
    columns: columns.map((c) => ({
      name: c.name!,
      type: c.type ?? 'text',
      required: c.required ?? false,
      unique: c.unique ?? false,
      ...c,
    })),
    auth_table: false,
    verify_email: false,
    rules: { list: null, view: null, create: null, update: null, delete: null },
    indexes: [],
    ...extra,
  };
}
