/**
 * Insert texts kept by shape (src/store/insert-texts.ts) and the prepared-statement names
 * PostgreSQL's store gives them (src/store/postgres/pg-prepared.ts): what a shape holds, the
 * bounds, and the numbers that name texts for good.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import type { ColumnRef, InsertStatement } from '../../../src/query/sql-tree.js';
import { InsertTexts } from '../../../src/store/insert-texts.js';
import { preparedName } from '../../../src/store/postgres/pg-prepared.js';

const c = (name: string, type: ColumnRef['type']): ColumnRef => ({ name, type });
const insert = (columns: ColumnRef[], rows: unknown[][]): InsertStatement => ({
  kind: 'insert',
  table: 't',
  columns,
  rows,
});

describe('insert texts', () => {
  const compiled: string[] = [];
  const texts = (chars = 10_000) =>
    new InsertTexts(
      { entries: 2, chars },
      (statement) => {
        const text = `text ${compiled.length}: ${statement.rows.length} rows`;
        compiled.push(text);
        return text;
      },
      (value, type) => `${type}:${String(value)}`,
    );

  it('a shape compiles once; parameters are the non-null values, encoded, in row order', () => {
    const kept = texts();
    const columns = [c('a', 'text'), c('b', 'integer')];
    const first = kept.get(insert(columns, [['x', 1]]))!;
    const second = kept.get(insert(columns, [['y', 2]]))!;
    assert.equal(second.sql, first.sql);
    assert.equal(second.textNumber, first.textNumber);
    assert.deepEqual(second.params, ['text:y', 'integer:2']);
    // A null is literal NULL in the text: another shape.
    const withNull = kept.get(insert(columns, [['z', null]]))!;
    assert.notEqual(withNull.textNumber, first.textNumber);
    assert.deepEqual(withNull.params, ['text:z']);
  });

  it('a column of another type is another shape (PostgreSQL placeholders carry casts)', () => {
    const kept = texts();
    const a = kept.get(insert([c('a', 'text')], [['1']]))!;
    const b = kept.get(insert([c('a', 'integer')], [[1]]))!;
    assert.notEqual(a.textNumber, b.textNumber);
  });

  it('an upsert with a condition has no kept text', () => {
    const statement: InsertStatement = {
      ...insert([c('a', 'text')], [['1']]),
      onConflictUpdate: { target: 'a', update: [], where: { kind: 'bool', value: true } },
    };
    assert.equal(texts().get(statement), undefined);
  });

  it('past its bound the oldest text goes, and a text compiled again gets a new number', () => {
    const kept = texts();
    const one = kept.get(insert([c('a', 'text')], [['1']]))!;
    kept.get(insert([c('b', 'text')], [['1']]));
    kept.get(insert([c('c', 'text')], [['1']]));
    const again = kept.get(insert([c('a', 'text')], [['1']]))!;
    assert.notEqual(again.textNumber, one.textNumber);
  });

  it('a text longer than the bound is not kept and has no number', () => {
    const result = texts(5).get(insert([c('a', 'text')], [['1']]))!;
    assert.equal(result.textNumber, undefined);
  });
});

describe('prepared statement names', () => {
  it('one name per text; a connection prepares at most 32 texts and runs the others unnamed', () => {
    const client = {} as pg.ClientBase;
    const names = Array.from({ length: 32 }, (_, i) => preparedName(client, 1000 + i, 4));
    assert.equal(new Set(names).size, 32);
    assert.equal(preparedName(client, 1000, 4), names[0], 'a prepared text keeps its name');
    assert.equal(preparedName(client, 2000, 4), undefined);
    assert.equal(preparedName({} as pg.ClientBase, 2000, 4), 'rb_insert_2000', 'another connection has room');
  });

  it('a connection prepares at most 24,576 placeholders in all (backend memory)', () => {
    const client = {} as pg.ClientBase;
    assert.equal(preparedName(client, 3000, 8000), 'rb_insert_3000', 'a bulk upsert of 1,000 rows');
    assert.equal(preparedName(client, 3001, 4000), 'rb_insert_3001', 'its 1,000 log entries');
    assert.equal(preparedName(client, 3004, 8000), 'rb_insert_3004', 'a bulk create of 1,000 rows');
    assert.equal(preparedName(client, 3002, 8000), undefined, 'another big text runs unnamed');
    assert.equal(preparedName(client, 3003, 9), 'rb_insert_3003', 'a small one still fits');
    assert.equal(preparedName(client, 3000, 8000), 'rb_insert_3000');
  });
});
