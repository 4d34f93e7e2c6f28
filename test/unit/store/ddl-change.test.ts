/**
 * The engine-neutral comparison of a table change (src/store/ddl-change.ts) that both engines
 * read: PostgreSQL as ALTER steps, SQLite to choose between ALTER TABLE and a rebuild.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffTable } from '../../../src/store/ddl-change.js';
import { tableOf } from '../../helpers/storage-engines.js';

const parent = { table: 'parents', on_delete: 'cascade' } as const;

describe('table change comparison', () => {
  it('columns after the change come in table order as added, reset or kept; gone ones are dropped', () => {
    const before = tableOf('t', [{ name: 'a' }, { name: 'b', type: 'integer' }, { name: 'gone' }]);
    const after = tableOf('t', [{ name: 'new' }, { name: 'b', type: 'boolean' }, { name: 'a' }]);
    const diff = diffTable(before, after, ['b']);
    assert.deepEqual(
      diff.steps.map((s) => [s.column.name, s.kind]),
      [
        ['new', 'added'],
        ['b', 'reset'],
        ['a', 'kept'],
      ],
    );
    assert.deepEqual(diff.dropped, ['gone']);
  });

  it('a changed reference drops the old foreign key and adds the new; an unchanged one is left alone', () => {
    const before = tableOf('t', [
      { name: 'p', references: parent },
      { name: 'q', references: parent },
      { name: 'r', references: parent },
    ]);
    const after = tableOf('t', [
      { name: 'p', references: { ...parent, on_delete: 'restrict' } },
      { name: 'q', references: parent },
      { name: 's', references: parent },
    ]);
    const diff = diffTable(before, after, []);
    assert.deepEqual(diff.foreignKeysDropped, ['p', 'r']);
    assert.deepEqual(
      diff.foreignKeysAdded.map((c) => c.name),
      ['p', 's'],
    );
  });

  it('turning auth on or off is reported both ways', () => {
    const plain = tableOf('users', []);
    const auth = tableOf('users', [], { auth_table: true });
    assert.deepEqual([diffTable(plain, auth, []).authAdded, diffTable(plain, auth, []).authDropped], [true, false]);
    assert.deepEqual([diffTable(auth, plain, []).authAdded, diffTable(auth, plain, []).authDropped], [false, true]);
  });
});
