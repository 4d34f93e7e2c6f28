/**
 * The engine-neutral DDL plan (src/store/ddl-plan.ts): the decisions both engines print.
 * A stored default comes from a column's origin, never from its name (issue 27, defect 1).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTableDdl } from '../../../src/store/ddl-plan.js';
import { tableOf } from '../../helpers/storage-engines.js';

const byName = (plan: ReturnType<typeof planTableDdl>, name: string) => plan.columns.find((c) => c.name === name)!;

describe('table DDL plan', () => {
  it('a declared email_verified column is a plain nullable boolean without stored default', () => {
    const plan = planTableDdl(tableOf('things', [{ name: 'email_verified', type: 'boolean' }]));
    assert.deepEqual(byName(plan, 'email_verified'), {
      name: 'email_verified',
      type: 'boolean',
      primaryKey: false,
      notNull: false,
    });
  });

  it("an auth table's email_verified and password_version carry stored defaults; email and password do not", () => {
    const plan = planTableDdl(tableOf('users', [], { auth_table: true }));
    assert.equal(byName(plan, 'email_verified').storedDefault, false);
    assert.equal(byName(plan, 'password_version').storedDefault, 1);
    assert.equal(byName(plan, 'email').storedDefault, undefined);
    assert.ok(['email', 'password', 'email_verified', 'password_version'].every((name) => byName(plan, name).notNull));
  });

  it('system columns come first; only id is the primary key; a required column is NOT NULL', () => {
    const plan = planTableDdl(tableOf('things', [{ name: 'title', required: true }, { name: 'note' }]));
    assert.deepEqual(
      plan.columns.map((c) => [c.name, c.primaryKey, c.notNull]),
      [
        ['id', true, true],
        ['created_at', false, true],
        ['updated_at', false, true],
        ['title', false, true],
        ['note', false, false],
      ],
    );
  });

  it('a reference becomes a named foreign key with its on-delete action, and its column gets an index', () => {
    const plan = planTableDdl(
      tableOf('links', [{ name: 'thing', references: { table: 'things', on_delete: 'set_null' } }]),
    );
    assert.deepEqual(plan.foreignKeys, [
      { name: 'links__fk__thing', column: 'thing', table: 'things', onDelete: 'set_null' },
    ]);
    assert.deepEqual(byName(plan, 'thing').references, plan.foreignKeys[0]);
    assert.ok(plan.indexes.some((index) => !index.unique && index.columns.join() === 'thing'));
  });
});
