/**
 * The SQLite engine keeps at most MAX_OPEN_PROJECTS project files open and closes the least
 * recently used one first. "Used" means any statement: the data routes read through the
 * database object the schema cache holds, without asking the engine for the project again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/query/sql-tree.js';
import type { SqliteDatabase } from '../../src/store/sqlite/sqlite-database.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
import type { StorageEngine } from '../../src/store/types.js';
import { tableOf } from '../helpers/storage-engines.js';

const TABLE = tableOf('notes', [{ name: 'body' }]);

describe('SQLite project pool: least recently used closes first', () => {
  let dataDir: string;
  let engine: StorageEngine;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-pool-'));
    engine = buildSqliteEngine({ dataDir, synchronous: 'normal', maxOpenProjects: 2 });
    for (const id of ['pool-a', 'pool-b', 'pool-c']) {
      await engine.createProject(id);
      const db = await engine.project(id);
      await db.changeSchema((tx) => tx.changeTable({ before: null, after: TABLE, resetColumns: [] }));
    }
  });
  after(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const read = (db: SqliteDatabase) =>
    db.all({ kind: 'select', table: TABLE.name, columns: [{ name: 'id', type: 'text' }], where: sql.eq('id', 'none') });

  it('keeps the project that was read through its database object, and closes the idle one', async () => {
    const a = (await engine.project('pool-a')) as SqliteDatabase;
    await read(a);
    const b = (await engine.project('pool-b')) as SqliteDatabase;
    await read(b);
    assert.equal(a.isOpen && b.isOpen, true);
    // `a` was opened before `b`, but is read after it without asking the engine again, as the
    // data routes read a hot project on every request.
    for (let i = 0; i < 3; i++) await read(a);
    const c = (await engine.project('pool-c')) as SqliteDatabase;
    await read(c);
    assert.equal(a.isOpen, true, 'the recently read project stays open');
    assert.equal(b.isOpen, false, 'the least recently used project is closed');
    assert.equal(c.isOpen, true);
    assert.deepEqual(await read(b), [], 'a closed project reopens on its next statement');
  });
});
