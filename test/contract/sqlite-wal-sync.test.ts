/**
 * With `synchronous: 'full'` (the default) SQLite commits with synchronous=NORMAL and a write is
 * acknowledged only after an fdatasync of the WAL made after its commit (wal-sync.ts), off the
 * event loop. These scenarios hold every write path to that, check that commits waiting together
 * share a sync, and that `normal` makes none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { sql, type ColumnRef } from '../../src/query/sql-tree.js';
import type { SqliteDatabase } from '../../src/store/sqlite/sqlite-database.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
import type { StorageEngine } from '../../src/store/types.js';
import { tableOf } from '../helpers/storage-engines.js';

const COLUMNS: ColumnRef[] = [
  { name: 'id', type: 'text' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'updated_at', type: 'timestamp' },
  { name: 't', type: 'text' },
];
const TABLE = tableOf('notes', [{ name: 't', unique: true }]);
const STAMP = '2026-01-31T09:30:00.123Z';

describe('SQLite commits are synced to disk before they are acknowledged', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const open = async (
    synchronous: 'full' | 'normal',
    maxOpenProjects = 4,
  ): Promise<{ engine: StorageEngine; db: SqliteDatabase; dataDir: string }> => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-walsync-'));
    const engine = buildSqliteEngine({ dataDir, synchronous, maxOpenProjects });
    cleanups.push(async () => {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await engine.createProject('sync');
    const db = (await engine.project('sync')) as SqliteDatabase;
    await db.changeSchema((tx) => tx.changeTable({ before: null, after: TABLE, resetColumns: [] }));
    return { engine, db, dataDir };
  };
  let counter = 0;
  const insert = (t = `row-${++counter}`) => ({
    kind: 'insert' as const,
    table: TABLE.name,
    columns: COLUMNS,
    rows: [[`id-${++counter}`, STAMP, STAMP, t]],
  });
  const countRows = (db: SqliteDatabase) => db.count({ kind: 'count', table: TABLE.name });

  it('a schema change, a lone write and a writing transaction each wait for a WAL sync', async () => {
    const { db } = await open('full');
    assert.ok(db.walSyncCount >= 1, 'the table creation was synced');
    for (const write of [
      () => db.run(insert()),
      () => db.first({ ...insert(), returning: COLUMNS }),
      () => db.transaction(async (tx) => tx.run(insert())),
    ]) {
      const before = db.walSyncCount;
      await write();
      assert.equal(db.walSyncCount, before + 1);
    }
    assert.equal(await countRows(db), 3);
  });

  it('reads and read-only transactions make no sync', async () => {
    const { db } = await open('full');
    await db.run(insert());
    const before = db.walSyncCount;
    await db.all({ kind: 'select', table: TABLE.name, columns: COLUMNS });
    await countRows(db);
    await db.transaction(async (tx) =>
      tx.first({ kind: 'select', table: TABLE.name, columns: COLUMNS, where: sql.eq('t', 'none') }),
    );
    assert.equal(db.walSyncCount, before);
  });

  it('a transaction that fails is rolled back, and its error waits for a sync like any answer', async () => {
    const { db } = await open('full');
    await db.run(insert('taken'));
    const before = db.walSyncCount;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.run(insert('fresh'));
        await tx.run(insert('taken')); // unique violation
      }),
    );
    assert.equal(db.walSyncCount, before + 1);
    assert.equal(await countRows(db), 1, 'nothing of the failed transaction is kept');
  });

  it('40 writes started together share a few syncs and are all acknowledged', async () => {
    const { db } = await open('full');
    const before = db.walSyncCount;
    await Promise.all([
      ...Array.from({ length: 20 }, () => db.run(insert())),
      ...Array.from({ length: 20 }, () => db.transaction(async (tx) => tx.run(insert()))),
    ]);
    const syncs = db.walSyncCount - before;
    // The first commit starts a sync; the others commit while it runs and share the next one.
    assert.ok(syncs >= 1 && syncs <= 3, `expected 1 to 3 syncs for 40 commits, saw ${syncs}`);
    assert.equal(await countRows(db), 40);
  });

  it('a connection closed by the pool and opened again syncs its new WAL', async () => {
    const { engine, db } = await open('full', 1);
    await db.run(insert());
    await engine.createProject('other'); // opening another project closes this one's handle
    await engine.project('other');
    assert.equal(db.isOpen, false, 'the pool closed the handle');
    const before = db.walSyncCount;
    await db.run(insert());
    assert.equal(db.walSyncCount, before + 1);
    assert.equal(await countRows(db), 2);
  });

  it('a refusal that rests on another commit is answered only once that commit is on disk', async () => {
    const { db } = await open('full');
    const before = db.walSyncCount;
    const first = db.run(insert('same'));
    const second = db.run(insert('same')).then(
      () => assert.fail('the second insert of a unique value must be refused'),
      () => db.walSyncCount,
    );
    await first;
    assert.ok((await second) > before, 'the conflict was answered after the first row was synced');
  });

  it('createProject answers once the new file and its internal tables are on disk', async () => {
    const { engine } = await open('full');
    await engine.createProject('fresh');
    const fresh = (await engine.project('fresh')) as SqliteDatabase;
    assert.ok(fresh.walSyncCount >= 1);
  });

  it('the pool keeps a connection open while its writes wait for their sync; close leaves no file open', async () => {
    const { engine, db, dataDir } = await open('full', 1);
    await engine.createProject('other');
    const writes: Promise<number>[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push(db.run(insert())); // waits for its sync...
      await engine.project('other'); // ...while opening another project asks the pool to close this one
      writes.push(((await engine.project('other')) as SqliteDatabase).run(insert()).catch(() => 0));
    }
    assert.deepEqual(
      (await Promise.all(writes.filter((_, i) => i % 2 === 0))).filter((n) => n !== 1),
      [],
      'every write acknowledged',
    );
    assert.equal(await countRows(db), 20);
    await engine.close();
    const handles = readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return [];
      }
    });
    assert.deepEqual(
      handles.filter((file) => file.startsWith(dataDir)),
      [],
      'no handle on the data folder after close',
    );
  });

  it("synchronous 'normal' skips the sync (the last commits may be lost on power loss)", async () => {
    const { db } = await open('normal');
    await db.run(insert());
    await db.transaction(async (tx) => tx.run(insert()));
    assert.equal(db.walSyncCount, 0);
    assert.equal(await countRows(db), 2);
  });
});
