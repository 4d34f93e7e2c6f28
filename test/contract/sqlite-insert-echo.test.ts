/**
 * SQLite answers a single-row INSERT ... RETURNING from the bound values when every returned
 * column was inserted (sqlite-database.ts, a benchmark optimisation). These scenarios hold it
 * to what reading the row back gives, for every type and for the values SQLite would change
 * on the way in (which must take the RETURNING path).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type ColumnRef, type ValueType } from '../../src/query/sql-tree.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
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
  c('at', 'timestamp'),
  c('doc', 'json'),
];
const TABLE = tableOf('echoes', [
  { name: 't' },
  { name: 'n', type: 'integer' },
  { name: 'x', type: 'number' },
  { name: 'b', type: 'boolean' },
  { name: 'at', type: 'timestamp' },
  { name: 'doc', type: 'json' },
]);
const STAMP = '2026-01-31T09:30:00.123Z';

describe('SQLite insert returning, answered from the bound values', () => {
  let dataDir: string;
  let engine: StorageEngine;
  let db: ProjectDatabase;
  let counter = 0;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-echo-'));
    engine = buildSqliteEngine({ dataDir, synchronous: 'normal', maxOpenProjects: 4 });
    await engine.createProject('echo');
    db = await engine.project('echo');
    await db.changeSchema((tx) => tx.changeTable({ before: null, after: TABLE, resetColumns: [] }));
  });
  after(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Inserts every column (so the echo applies), then reads the row back. */
  const roundTrip = async (values: Record<string, unknown>) => {
    const row: Record<string, unknown> = {
      id: `e${++counter}`,
      created_at: STAMP,
      updated_at: STAMP,
      t: null,
      n: null,
      x: null,
      b: null,
      at: null,
      doc: null,
      ...values,
    };
    const returned = await db.first({
      kind: 'insert',
      table: TABLE.name,
      columns: COLUMNS,
      rows: [COLUMNS.map((col) => row[col.name])],
      returning: COLUMNS,
    });
    const read = await db.first({
      kind: 'select',
      table: TABLE.name,
      columns: COLUMNS,
      where: sql.eq('id', row.id as string),
    });
    return { returned, read };
  };

  const cases: [string, Record<string, unknown>][] = [
    ['nulls of every type', {}],
    ['text with quotes, emoji and CJK', { t: '🦀 日本語 \'q\' "d" \\' }],
    ['text holding a lone surrogate (stored as U+FFFD)', { t: 'a\ud800b' }],
    ['integer ±(2^53−1)', { n: Number.MAX_SAFE_INTEGER, x: -Number.MAX_SAFE_INTEGER }],
    ['number holding a whole value', { x: 3 }],
    ['number with a fraction', { x: 0.1 }],
    ['integer column given a numeric string (SQLite converts it)', { n: '42' }],
    ['text column given a number (SQLite converts it)', { t: 7 }],
    ['booleans', { b: true }],
    ['boolean false', { b: false }],
    ['timestamp', { at: STAMP }],
    ['json object with nesting and a lone surrogate', { doc: { a: [1, null, 'x\udc00'], b: { c: true } } }],
    ['json string', { doc: 'just text' }],
  ];
  for (const [label, values] of cases) {
    it(`${label}: the insert returns what a select reads back`, async () => {
      const { returned, read } = await roundTrip(values);
      assert.ok(read, 'the row was written');
      assert.deepEqual(returned, read);
    });
  }

  it('a returned column that was not inserted is read back (its value comes from the table)', async () => {
    const columns = COLUMNS.filter((col) => col.name !== 't');
    const returned = await db.first({
      kind: 'insert',
      table: TABLE.name,
      columns,
      rows: [columns.map((col) => (col.name === 'id' ? 'partial' : col.name.endsWith('_at') ? STAMP : null))],
      returning: COLUMNS,
    });
    assert.equal(returned?.t, null);
    assert.equal(returned?.id, 'partial');
  });

  it('insert on conflict do nothing returns no row for a duplicate', async () => {
    const insert = () =>
      db.all({
        kind: 'insert',
        table: TABLE.name,
        columns: COLUMNS.slice(0, 3),
        rows: [['dup', STAMP, STAMP]],
        onConflictDoNothing: true,
        returning: COLUMNS.slice(0, 3),
      });
    assert.equal((await insert()).length, 1);
    assert.deepEqual(await insert(), []);
  });
});
