/**
 * SQLite selects run in better-sqlite3's raw mode and build row objects with a function
 * compiled per statement (sqlite-rows.ts). These scenarios hold the rows to what object mode
 * gave: keys in select order, booleans and json decoded, nulls kept, a column named twice
 * one key, and the same rows from a list, a first-row read and a read by id.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type ColumnRef, type ValueType } from '../../src/query/sql-tree.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
import { buildRowBuilder } from '../../src/store/sqlite/sqlite-rows.js';
import type { ProjectDatabase, StorageEngine } from '../../src/store/types.js';
import { tableOf } from '../helpers/storage-engines.js';

const c = (name: string, type: ValueType): ColumnRef => ({ name, type });
const COLUMNS = [
  c('id', 'text'),
  c('created_at', 'timestamp'),
  c('updated_at', 'timestamp'),
  c('t', 'text'),
  c('n', 'integer'),
  c('x', 'number'),
  c('b', 'boolean'),
  c('doc', 'json'),
];
const TABLE = tableOf('raws', [
  { name: 't' },
  { name: 'n', type: 'integer' },
  { name: 'x', type: 'number' },
  { name: 'b', type: 'boolean' },
  { name: 'doc', type: 'json' },
]);
const STAMP = '2026-01-31T09:30:00.123Z';
const ROWS: Record<string, unknown>[] = [
  {
    id: 'r1',
    created_at: STAMP,
    updated_at: STAMP,
    t: 'text "quoted" 🦀',
    n: 42,
    x: 0.5,
    b: true,
    doc: { a: [1, null, 'x'], b: { c: false } },
  },
  { id: 'r2', created_at: STAMP, updated_at: STAMP, t: null, n: null, x: null, b: false, doc: 'just text' },
  { id: 'r3', created_at: STAMP, updated_at: STAMP, t: '', n: -7, x: 3, b: null, doc: null },
];

describe('SQLite selects in raw mode', () => {
  let dataDir: string;
  let engine: StorageEngine;
  let db: ProjectDatabase;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-raw-'));
    engine = buildSqliteEngine({ dataDir, synchronous: 'normal', maxOpenProjects: 4 });
    await engine.createProject('raw');
    db = await engine.project('raw');
    await db.changeSchema((tx) => tx.changeTable({ before: null, after: TABLE, resetColumns: [] }));
    await db.run({
      kind: 'insert',
      table: TABLE.name,
      columns: COLUMNS,
      rows: ROWS.map((row) => COLUMNS.map((col) => row[col.name])),
    });
  });
  after(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a list gives every row with its values decoded and its keys in select order', async () => {
    const rows = await db.all({
      kind: 'select',
      table: TABLE.name,
      columns: COLUMNS,
      orderBy: [{ column: 'id', descending: false }],
    });
    assert.deepEqual(rows, ROWS);
    for (const row of rows)
      assert.deepEqual(
        Object.keys(row),
        COLUMNS.map((col) => col.name),
      );
  });

  it('a read by id, a first-row read and a list agree on the same row', async () => {
    for (const expected of ROWS) {
      const byId = await db.first({
        kind: 'select',
        table: TABLE.name,
        columns: COLUMNS,
        where: sql.eq('id', expected.id),
      });
      const first = await db.first({
        kind: 'select',
        table: TABLE.name,
        columns: COLUMNS,
        where: sql.eq('t', expected.t),
      });
      const listed = await db.all({
        kind: 'select',
        table: TABLE.name,
        columns: COLUMNS,
        where: sql.eq('id', expected.id),
        limit: 5,
      });
      assert.deepEqual(byId, expected);
      assert.deepEqual(listed, [expected]);
      if (expected.t !== null) assert.deepEqual(first, expected);
    }
  });

  it('a column list in another order, or a subset, gives those keys in that order', async () => {
    const columns = [c('doc', 'json'), c('b', 'boolean'), c('id', 'text')];
    const rows = await db.all({ kind: 'select', table: TABLE.name, columns, where: sql.eq('id', 'r1') });
    assert.deepEqual(Object.keys(rows[0]!), ['doc', 'b', 'id']);
    assert.deepEqual(rows[0], { doc: ROWS[0]!.doc, b: true, id: 'r1' });
  });

  it('a column named twice is one key, decoded once', async () => {
    const columns = [c('id', 'text'), c('doc', 'json'), c('doc', 'json'), c('b', 'boolean'), c('b', 'boolean')];
    const rows = await db.all({ kind: 'select', table: TABLE.name, columns, where: sql.eq('id', 'r1') });
    assert.deepEqual(rows, [{ id: 'r1', doc: ROWS[0]!.doc, b: true }]);
  });

  it('a count between two reads of the same table leaves the reads unchanged', async () => {
    const read = () => db.all({ kind: 'select', table: TABLE.name, columns: COLUMNS, where: sql.eq('id', 'r2') });
    const before = await read();
    assert.equal(await db.count({ kind: 'count', table: TABLE.name }), 3);
    assert.deepEqual(await read(), before);
  });

  it('the builder makes `__proto__` an own property, never the prototype', () => {
    const build = buildRowBuilder(
      ['id', '__proto__', 'b'],
      [c('id', 'text'), c('__proto__', 'json'), c('b', 'boolean')],
    );
    const row = build(['r9', '{"polluted":true}', 1]);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.keys(row), ['id', '__proto__', 'b']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, { polluted: true });
    assert.equal(row.b, true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("names the statement does not type keep SQLite's value", () => {
    const build = buildRowBuilder(['n', 'extra'], [c('n', 'integer')]);
    assert.deepEqual(build([1, 1]), { n: 1, extra: 1 });
  });
});
