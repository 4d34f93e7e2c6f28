/**
 * The internal tables as described once (src/store/system-tables.ts) are the tables both
 * engines' migrations build: for every descriptor, the migrated database has that table with
 * exactly those columns, in that order. The PostgreSQL-only tables (rate limits, change
 * counters, migration records) are checked the same way on PostgreSQL and must be absent on
 * SQLite. A column added by a new migration but not to its descriptor, or the reverse, fails here.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { projectSchema, SYSTEM_SCHEMA } from '../../src/store/postgres/pg-migrations.js';
import {
  POSTGRES_PROJECT_SCHEMA_TABLES,
  POSTGRES_SYSTEM_SCHEMA_TABLES,
  PROJECT_DATABASE_TABLES,
  SYSTEM_DATABASE_TABLES,
  type SystemTable,
} from '../../src/store/system-tables.js';
import { contractEngines, type EngineFixture } from '../helpers/storage-engines.js';

const PROJECT = 'system-tables';

/** The column names of `table` in order, read from the engine's own catalogue ([] when there is no such table). */
async function columnsOf(fixture: EngineFixture, database: 'system' | 'project', table: string): Promise<string[]> {
  if ('dataDir' in fixture.storage) {
    const file =
      database === 'system'
        ? path.join(fixture.storage.dataDir, 'system.db')
        : path.join(fixture.storage.dataDir, 'projects', `${PROJECT}.db`);
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table) as string[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: fixture.storage.url });
  await client.connect();
  try {
    const schema = database === 'system' ? SYSTEM_SCHEMA : projectSchema(PROJECT);
    const result = await client.query(
      'SELECT column_name FROM information_schema.columns WHERE ' +
        'table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
      [schema, table],
    );
    return result.rows.map((row: { column_name: string }) => row.column_name);
  } finally {
    await client.end();
  }
}

for (const factory of await contractEngines()) {
  describe(`internal tables match their descriptors on ${factory.name}`, () => {
    let fixture: EngineFixture;

    before(async () => {
      fixture = await factory.create();
      await fixture.engine.createProject(PROJECT);
      await fixture.engine.project(PROJECT);
    });
    after(() => fixture.dispose());

    const cases: [string, 'system' | 'project', readonly SystemTable[]][] = [
      ['system database', 'system', SYSTEM_DATABASE_TABLES],
      ['project database', 'project', PROJECT_DATABASE_TABLES],
    ];
    for (const [label, database, tables] of cases) {
      for (const table of tables) {
        it(`${label}: ${table.table} has exactly the described columns, in order`, async () => {
          assert.deepEqual(
            await columnsOf(fixture, database, table.table),
            table.columns.map((c) => c.name),
          );
        });
      }
    }

    const postgresOnly: [string, 'system' | 'project', readonly SystemTable[]][] = [
      ['system schema', 'system', POSTGRES_SYSTEM_SCHEMA_TABLES],
      ['project schema', 'project', POSTGRES_PROJECT_SCHEMA_TABLES],
    ];
    for (const [label, database, tables] of postgresOnly) {
      for (const table of tables) {
        if (factory.name === 'postgres') {
          it(`PostgreSQL-only, ${label}: ${table.table} has exactly the described columns, in order`, async () => {
            assert.deepEqual(
              await columnsOf(fixture, database, table.table),
              table.columns.map((c) => c.name),
            );
          });
        } else {
          it(`PostgreSQL-only, ${label}: ${table.table} does not exist here`, async () => {
            assert.deepEqual(await columnsOf(fixture, database, table.table), []);
          });
        }
      }
    }
  });
}

describe('internal table descriptors say which engines have them', () => {
  it('the PostgreSQL-only lists hold only tables marked onlyOn postgres', () => {
    for (const table of [...POSTGRES_SYSTEM_SCHEMA_TABLES, ...POSTGRES_PROJECT_SCHEMA_TABLES])
      assert.equal(table.onlyOn, 'postgres', table.table);
  });

  it('the lists every engine builds hold no table marked for one engine', () => {
    for (const table of [...SYSTEM_DATABASE_TABLES, ...PROJECT_DATABASE_TABLES])
      assert.equal(table.onlyOn, undefined, table.table);
  });
});
