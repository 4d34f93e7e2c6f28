/**
 * A table declared before "expand" became a reserved column name may still have such a column:
 * expanding its rows (or going on below them) is refused with VALIDATION_FILTER instead of
 * answering with the column's value replaced (src/tables/row-expand.ts, checkExpandKey).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../../src/errors/app-error.js';
import { parseExpand } from '../../../src/query/expand.js';
import { compileTable, type CompiledTable } from '../../../src/tables/compiled-table.js';
import type { ColumnDefinition, TableDefinition } from '../../../src/schema/definition.js';
import { checkExpandKey, referenceMapOf } from '../../../src/tables/row-expand.js';

const column = (name: string, references?: string): ColumnDefinition => ({
  name,
  type: 'text',
  required: false,
  unique: false,
  ...(references && { references: { table: references, on_delete: 'set_null' } }),
});
const table = (name: string, columns: ColumnDefinition[]): TableDefinition => ({
  name,
  columns,
  auth_table: false,
  verify_email: false,
  rules: { list: '', view: '', create: null, update: null, delete: null },
  indexes: [],
});
// Written as stored, without parseDefinition (which now refuses the name).
const tables = new Map<string, CompiledTable>(
  [
    table('posts', [column('title')]),
    table('boxes', [column('expand'), column('post', 'posts')]),
    table('notes', [column('box', 'boxes')]),
  ].map((d) => [d.name, compileTable(d, new Map())]),
);
const check = (on: string, expand: string) => () =>
  checkExpandKey(tables.get(on)!, parseExpand(expand, on, referenceMapOf(tables)), tables);
const refusal = (error: unknown) =>
  isAppError(error) && error.code === 'VALIDATION_FILTER' && /column named "expand"/.test(error.message);

describe('expand on rows that have a column named "expand"', () => {
  it('expanding such rows is refused', () => assert.throws(check('boxes', 'post'), refusal));
  it('a path that goes on below such a row is refused', () => assert.throws(check('notes', 'box.post'), refusal));
  it('a path that ends at such a row is fine (the row gains no expand)', () =>
    assert.doesNotThrow(check('notes', 'box')));
  it('no expand, nothing to check', () => assert.doesNotThrow(() => checkExpandKey(tables.get('boxes')!, [], tables)));
});
