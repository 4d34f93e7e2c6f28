/**
 * The storage contract, part two: table changes inside `changeSchema` (rows kept, defaults
 * filled, constraint failures as StoreError kinds, everything rolled back together),
 * `externalChangeVersion()` seeing writes made by another engine instance (another process),
 * and row locks on engines that several processes share.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type ColumnRef, type ValueType } from '../../src/query/sql-tree.js';
import { StoreError, type ProjectDatabase, type TableChange } from '../../src/store/types.js';
import type { TableDefinition } from '../../src/schema/definition.js';
import { contractEngines, tableOf, type EngineFixture } from '../helpers/storage-engines.js';

/** Versions are read at most once per event-loop turn; the next turn reads afresh. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const c = (name: string, type: ValueType): ColumnRef => ({ name, type });
const SYSTEM = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')];
const STAMP = '2026-01-31T09:30:00.000Z';
const DEFINITIONS = [c('name', 'text'), c('definition', 'json'), c('created_at', 'text'), c('updated_at', 'text')];

function kind(expected: StoreError['kind'], column?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof StoreError, `a StoreError, not ${String(error)}`);
    assert.equal(error.kind, expected, error.message);
    if (column !== undefined) assert.equal(error.column, column, error.message);
    return true;
  };
}

for (const factory of await contractEngines()) {
  describe(`storage contract (schema, versions, locks) on ${factory.name}`, () => {
    let fixture: EngineFixture;
    let db: ProjectDatabase;
    let current = new Map<string, TableDefinition>();

    /** Changes a table as the schema service does: DDL plus the definition row, in one transaction. */
    const change = async (after: TableDefinition | null, name: string, resetColumns: string[] = []) => {
      const before = current.get(name) ?? null;
      const tableChange: TableChange = { before, after, resetColumns };
      await db.changeSchema(async (tx) => {
        await tx.changeTable(tableChange);
        if (before) await tx.run({ kind: 'delete', table: '_rb_tables', where: sql.eq('name', name) });
        if (after)
          await tx.run({
            kind: 'insert',
            table: '_rb_tables',
            columns: DEFINITIONS,
            rows: [[name, after, STAMP, STAMP]],
          });
      });
      if (after) current.set(name, after);
      else current.delete(name);
    };
    const insert = (table: string, values: Record<string, unknown>, types: Record<string, ValueType> = {}) => {
      const columns = [
        ...SYSTEM,
        ...Object.keys(values)
          .filter((k) => k !== 'id')
          .map((k) => c(k, types[k] ?? 'text')),
      ];
      const row = { created_at: STAMP, updated_at: STAMP, ...values };
      return db.run({
        kind: 'insert',
        table,
        columns,
        rows: [columns.map((column) => (row as Record<string, unknown>)[column.name])],
      });
    };
    const column = async (table: string, name: string, type: ValueType) =>
      (
        await db.all({
          kind: 'select',
          table,
          columns: [c('id', 'text'), c(name, type)],
          orderBy: [{ column: 'id', descending: false }],
        })
      ).map((row) => row[name]);
    const definitionCount = () => db.count({ kind: 'count', table: '_rb_tables' });

    before(async () => {
      fixture = await factory.create();
      await fixture.engine.createProject('schema-contract');
      db = await fixture.engine.project('schema-contract');
      current = new Map();
      await change(tableOf('items', [{ name: 'label' }, { name: 'qty', type: 'integer' }]), 'items');
      await insert('items', { id: 'i1', label: 'a', qty: 1 }, { qty: 'integer' });
      await insert('items', { id: 'i2', label: 'a', qty: null }, { qty: 'integer' });
    });
    after(() => fixture.dispose());

    it('an optional column left out of an insert reads back null, whatever its type or name', async () => {
      // Names that auth tables use take no DDL default on a table that declares them itself.
      const types: [string, ValueType][] = [
        ['note', 'text'],
        ['count', 'integer'],
        ['ratio', 'number'],
        ['flag', 'boolean'],
        ['at', 'timestamp'],
        ['doc', 'json'],
        ['email_verified', 'boolean'],
        ['password_version', 'integer'],
      ];
      await change(
        tableOf(
          'sparse',
          types.map(([name, type]) => ({ name, type })),
        ),
        'sparse',
      );
      await insert('sparse', { id: 's1' });
      for (const [name, type] of types) assert.deepEqual(await column('sparse', name, type), [null], name);
      await change(null, 'sparse');
    });

    it('an added column gets its default on existing rows', async () => {
      await change(
        tableOf('items', [
          { name: 'label' },
          { name: 'qty', type: 'integer' },
          { name: 'flag', type: 'boolean', default: true },
        ]),
        'items',
      );
      assert.deepEqual(await column('items', 'flag', 'boolean'), [true, true]);
    });

    it('a required column without default on a table with rows → not-null; DDL and definition roll back', async () => {
      const definitions = await definitionCount();
      const attempt = tableOf('items', [
        { name: 'label' },
        { name: 'qty', type: 'integer' },
        { name: 'flag', type: 'boolean', default: true },
        { name: 'must', required: true },
      ]);
      await assert.rejects(change(attempt, 'items'), kind('not-null', 'must'));
      assert.equal(await definitionCount(), definitions);
      await assert.rejects(column('items', 'must', 'text'), 'the column was not added');
    });

    it('a column made unique over duplicates → unique naming the column', async () => {
      await assert.rejects(
        change(
          tableOf('items', [
            { name: 'label', unique: true },
            { name: 'qty', type: 'integer' },
            { name: 'flag', type: 'boolean', default: true },
          ]),
          'items',
        ),
        kind('unique', 'label'),
      );
    });

    it('a column made required: nulls take the default', async () => {
      await change(
        tableOf('items', [
          { name: 'label' },
          { name: 'qty', type: 'integer', required: true, default: 5 },
          { name: 'flag', type: 'boolean', default: true },
        ]),
        'items',
      );
      assert.deepEqual(await column('items', 'qty', 'integer'), [1, 5]);
    });

    it('integer → number keeps every value', async () => {
      await change(
        tableOf('items', [
          { name: 'label' },
          { name: 'qty', type: 'number', required: true, default: 5 },
          { name: 'flag', type: 'boolean', default: true },
        ]),
        'items',
      );
      assert.deepEqual(await column('items', 'qty', 'number'), [1, 5]);
      await insert('items', { id: 'i3', label: 'b', qty: 2.5 }, { qty: 'number' });
      assert.deepEqual(await column('items', 'qty', 'number'), [1, 5, 2.5]);
    });

    it('a reset column (destructive type change) is cleared, then defaulted', async () => {
      await change(
        tableOf('items', [
          { name: 'label', type: 'integer' },
          { name: 'qty', type: 'number', required: true, default: 5 },
          { name: 'flag', type: 'json', default: { on: true } },
        ]),
        'items',
        ['label', 'flag'],
      );
      assert.deepEqual(await column('items', 'label', 'integer'), [null, null, null]);
      assert.deepEqual(await column('items', 'flag', 'json'), [{ on: true }, { on: true }, { on: true }]);
    });

    it('a dropped column is gone; the rows stay', async () => {
      await change(tableOf('items', [{ name: 'qty', type: 'number', required: true, default: 5 }]), 'items');
      await assert.rejects(column('items', 'label', 'integer'));
      assert.deepEqual(await column('items', 'qty', 'number'), [1, 5, 2.5]);
    });

    it('references: added over dangling values → reference; on_delete cascade rows follow their parent', async () => {
      await change(tableOf('owners', []), 'owners');
      await change(tableOf('pets', [{ name: 'owner' }]), 'pets');
      await insert('pets', { id: 'p1', owner: 'ghost' });
      const withReference = tableOf('pets', [{ name: 'owner', references: { table: 'owners', on_delete: 'cascade' } }]);
      await assert.rejects(change(withReference, 'pets'), kind('reference'));
      await db.run({ kind: 'delete', table: 'pets', where: sql.bool(true) });
      await change(withReference, 'pets');
      await insert('owners', { id: 'o1' });
      await insert('pets', { id: 'p2', owner: 'o1' });
      await db.run({ kind: 'delete', table: 'owners', where: sql.eq('id', 'o1') });
      assert.equal(await db.count({ kind: 'count', table: 'pets' }), 0);
    });

    it('an auth table gets its columns; on a table with rows the change fails with not-null', async () => {
      await change(tableOf('people', [{ name: 'nick' }]), 'people');
      await change(tableOf('people', [{ name: 'nick' }], { auth_table: true }), 'people');
      await insert('people', { id: 'u1', email: 'a@b.c', password: 'hash' });
      assert.deepEqual(await column('people', 'email_verified', 'boolean'), [false]);
      assert.deepEqual(await column('people', 'password_version', 'integer'), [1]);
      await assert.rejects(insert('people', { id: 'u2', email: 'a@b.c', password: 'x' }), kind('unique', 'email'));
      await change(tableOf('people', [{ name: 'nick' }]), 'people');
      await change(tableOf('people', [{ name: 'nick' }], { auth_table: true }), 'people').then(
        () => assert.fail('turning a table with rows into an auth table must fail'),
        kind('not-null'),
      );
    });

    it('work that throws after DDL rolls the DDL back', async () => {
      await assert.rejects(
        db.changeSchema(async (tx) => {
          await tx.changeTable({ before: null, after: tableOf('ephemeral', [{ name: 'x' }]), resetColumns: [] });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      await assert.rejects(db.count({ kind: 'count', table: 'ephemeral' }), 'the table does not exist');
    });

    it('a dropped table is gone', async () => {
      await change(null, 'pets');
      await assert.rejects(db.count({ kind: 'count', table: 'pets' }));
    });

    it("externalChangeVersion has moved, by the next event-loop turn, once another instance's write ends", async () => {
      const other = await fixture.another();
      const system = fixture.engine.system;
      const before = await system.externalChangeVersion();
      await other.system.run({
        kind: 'insert',
        table: 'platform_settings',
        columns: [c('name', 'text'), c('value', 'text')],
        rows: [['contract', 'x']],
      });
      await nextTurn();
      assert.notEqual(
        await system.externalChangeVersion(),
        before,
        'the system version moved as soon as the write returned',
      );
      const projectBefore = await db.externalChangeVersion();
      const otherProject = await other.project('schema-contract');
      await otherProject.changeSchema(async (tx) => {
        await tx.run({
          kind: 'insert',
          table: '_rb_tables',
          columns: DEFINITIONS,
          rows: [['marker', tableOf('marker', []), STAMP, STAMP]],
        });
      });
      await nextTurn();
      assert.notEqual(
        await db.externalChangeVersion(),
        projectBefore,
        'the project version moved as soon as the write returned',
      );
    });

    it('row locks: forUpdate waits for the holder, skipLocked passes by (engines shared by processes)', async (t) => {
      if (!fixture.engine.capabilities.sharedAcrossProcesses) {
        // One SQLite connection runs one transaction at a time: there is no second holder to test against.
        assert.equal(fixture.engine.capabilities.name, 'sqlite');
        return;
      }
      t.diagnostic('two transactions on one row');
      await change(tableOf('jobs', [{ name: 'state' }]), 'jobs');
      await insert('jobs', { id: 'j1', state: 'new' });
      await insert('jobs', { id: 'j2', state: 'new' });
      const select = (skipLocked: boolean) => ({
        kind: 'select' as const,
        table: 'jobs',
        columns: [c('id', 'text'), c('state', 'text')],
        orderBy: [{ column: 'id', descending: false }],
        forUpdate: true,
        skipLocked,
      });
      let releaseHolder!: () => void;
      const held = new Promise<void>((resolve) => (releaseHolder = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = db.transaction(async (tx) => {
        await tx.all({ ...select(false), where: sql.eq('id', 'j1') });
        locked();
        await held;
        await tx.run({
          kind: 'update',
          table: 'jobs',
          set: [{ column: c('state', 'text'), value: sql.value('taken', 'text') }],
          where: sql.eq('id', 'j1'),
        });
      });
      await isLocked;
      const skipped = await db.transaction((tx) => tx.all(select(true)));
      assert.deepEqual(
        skipped.map((row) => row.id),
        ['j2'],
        'skipLocked passes the locked row by',
      );
      let waited = false;
      const waiter = db
        .transaction((tx) => tx.all({ ...select(false), where: sql.eq('id', 'j1') }))
        .then((rows) => {
          waited = true;
          return rows;
        });
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(waited, false, 'a plain forUpdate waits for the holder');
      releaseHolder();
      await holder;
      assert.deepEqual(await waiter, [{ id: 'j1', state: 'taken' }], 'and then reads the committed row');
    });
  });
}
