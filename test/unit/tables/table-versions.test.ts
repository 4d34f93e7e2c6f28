/**
 * The pure parts of versioned table changes: the ETag of a definition
 * (src/tables/table-version.ts), the If-Match / If-None-Match checks, and how a PATCH body
 * is applied to a stored definition (src/tables/patch-definition.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors/app-error.js';
import type { TableDefinition } from '../../../src/schema/definition.js';
import { parseDefinition } from '../../../src/tables/parse-definition.js';
import { applyTablePatch } from '../../../src/tables/patch-definition.js';
import { checkPreconditions, tableETag } from '../../../src/tables/table-version.js';

const tasks = parseDefinition('tasks', {
  columns: [
    { name: 'title', type: 'text', required: true, max_length: 200 },
    { name: 'done', type: 'boolean', default: false },
  ],
  rules: { list: '', view: '' },
});

const refusedWith = (code: string) => (error: unknown) => error instanceof AppError && error.code === code;

describe('tableETag', () => {
  it('is a strong, quoted validator', () => {
    assert.match(tableETag(tasks), /^"[A-Za-z0-9_-]{27}"$/);
  });

  it('does not depend on the order of keys (PostgreSQL jsonb reorders them)', () => {
    const reordered = JSON.parse(
      JSON.stringify({
        indexes: tasks.indexes,
        rules: tasks.rules,
        verify_email: false,
        auth_table: false,
        columns: tasks.columns.map((c) => Object.fromEntries(Object.entries(c).reverse())),
        name: 'tasks',
      }),
    ) as TableDefinition;
    assert.equal(tableETag(reordered), tableETag(tasks));
  });

  it('changes with any change of the definition', () => {
    const etag = tableETag(tasks);
    assert.notEqual(tableETag({ ...tasks, rules: { ...tasks.rules, create: '' } }), etag);
    assert.notEqual(
      tableETag({ ...tasks, columns: [{ ...tasks.columns[0]!, max_length: 201 }, tasks.columns[1]!] }),
      etag,
    );
    assert.notEqual(tableETag({ ...tasks, name: 'todos' }), etag);
  });
});

describe('checkPreconditions', () => {
  const etag = tableETag(tasks);
  const cases: [string, TableDefinition | null, Parameters<typeof checkPreconditions>[2], string | null][] = [
    ['no preconditions on an existing table', tasks, undefined, null],
    ['If-None-Match: * on a missing table', null, { ifNoneMatch: '*' }, null],
    ['If-None-Match: * on an existing table', tasks, { ifNoneMatch: '*' }, 'TABLE_EXISTS'],
    ['If-Match with the current ETag', tasks, { ifMatch: [etag] }, null],
    ['If-Match with one of several ETags', tasks, { ifMatch: ['"old"', etag] }, null],
    ['If-Match with a stale ETag', tasks, { ifMatch: ['"old"'] }, 'SCHEMA_CHANGED'],
    [
      'If-Match with the weak form of the ETag (strong comparison)',
      tasks,
      { ifMatch: [`W/${etag}`] },
      'SCHEMA_CHANGED',
    ],
    ['If-Match on a missing table', null, { ifMatch: [etag] }, 'SCHEMA_CHANGED'],
    ['If-Match: * on an existing table', tasks, { ifMatch: '*' }, null],
    ['If-Match: * on a missing table', null, { ifMatch: '*' }, 'SCHEMA_CHANGED'],
  ];
  for (const [name, before, preconditions, code] of cases) {
    it(`${name} → ${code ?? 'passes'}`, () => {
      const check = () => checkPreconditions('tasks', before, preconditions);
      if (code) assert.throws(check, refusedWith(code));
      else assert.doesNotThrow(check);
    });
  }
});

describe('applyTablePatch', () => {
  it('merges rules per operation', () => {
    assert.deepEqual(applyTablePatch(tasks, { rules: { create: '' } }).rules, {
      list: '',
      view: '',
      create: '',
      update: null,
      delete: null,
    });
  });

  it('keeps what the patch does not name', () => {
    const merged = applyTablePatch(tasks, { rules: { create: '' } });
    assert.deepEqual(merged.columns, tasks.columns);
    assert.deepEqual(merged.indexes, tasks.indexes);
    assert.equal(merged.auth_table, false);
  });

  it('adds a new column at the end and merges options into a named one; null removes an option', () => {
    const merged = parseDefinition(
      'tasks',
      applyTablePatch(tasks, {
        columns: [
          { name: 'note', type: 'text' },
          { name: 'title', max_length: null, unique: true },
        ],
      }),
    );
    assert.deepEqual(
      merged.columns.map((c) => c.name),
      ['title', 'done', 'note'],
    );
    assert.deepEqual(merged.columns[0], { name: 'title', type: 'text', required: true, unique: true });
  });

  it('replaces indexes when given', () => {
    assert.deepEqual(applyTablePatch(tasks, { indexes: [['done']] }).indexes, [['done']]);
  });

  for (const [name, patch] of [
    ['a body that is not an object', ['rules']],
    ['an unknown field', { name: 'other' }],
    ['rules that are not an object', { rules: '' }],
    ['columns that are not an array', { columns: { name: 'x' } }],
    ['a column without a name', { columns: [{ type: 'text' }] }],
    [
      'a column named twice',
      {
        columns: [
          { name: 'note', type: 'text' },
          { name: 'note', type: 'text' },
        ],
      },
    ],
  ] as const) {
    it(`${name} → VALIDATION_FAILED`, () => {
      assert.throws(() => applyTablePatch(tasks, patch), refusedWith('VALIDATION_FAILED'));
    });
  }
});
