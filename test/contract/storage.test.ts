/**
 * The storage contract (docs/architecture.md, "An engine"): the ports of `src/store/types.ts` behave alike on
 * every engine. Statements of every kind, values of every type, the comparisons whose
 * semantics differ natively between SQLite and PostgreSQL (docs/engines.md), constraint
 * errors as StoreError kinds, and transactions. Schema changes: storage-schema.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type ColumnRef, type Expr, type ValueType } from '../../src/query/sql-tree.js';
import { StoreError, type ProjectDatabase, type Row } from '../../src/store/types.js';
import { contractEngines, tableOf, type EngineFixture } from '../helpers/storage-engines.js';

const MAX = Number.MAX_SAFE_INTEGER;
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
  c('code', 'text'),
];
const THINGS = tableOf('things', [
  { name: 't' },
  { name: 'n', type: 'integer' },
  { name: 'x', type: 'number' },
  { name: 'b', type: 'boolean' },
  { name: 'at', type: 'timestamp' },
  { name: 'doc', type: 'json' },
  { name: 'code', unique: true },
]);
const PARENTS = tableOf('parents', []);
const CHILDREN = tableOf('children', [
  { name: 'parent', references: { table: 'parents', on_delete: 'restrict' } },
  { name: 'label', required: true },
]);
const STAMP = '2026-01-31T09:30:00.123Z';

function expectStoreError(kind: StoreError['kind'], column?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof StoreError, `a StoreError, not ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    if (column !== undefined) assert.equal(error.column, column, error.message);
    return true;
  };
}

for (const factory of await contractEngines()) {
  describe(`storage contract on ${factory.name}`, () => {
    let fixture: EngineFixture;
    let db: ProjectDatabase;
    let counter = 0;
    const insert = (values: Partial<Record<string, unknown>>): Promise<Row | undefined> => {
      const row: Record<string, unknown> = { id: `r${++counter}`, created_at: STAMP, updated_at: STAMP, ...values };
      const columns = COLUMNS.filter((column) => column.name in row);
      return db.first({
        kind: 'insert',
        table: 'things',
        columns,
        rows: [columns.map((column) => row[column.name])],
        returning: COLUMNS,
      });
    };
    const select = (where?: Expr, orderBy = [{ column: 'id', descending: false }]) =>
      db.all({ kind: 'select', table: 'things', columns: COLUMNS, ...(where && { where }), orderBy });
    const ids = (rows: Row[]) => rows.map((row) => row.id);
    const like = (pattern: string, caseInsensitive: boolean, negated = false): Expr => ({
      kind: 'like',
      expr: sql.column('t'),
      pattern,
      caseInsensitive,
      negated,
    });

    before(async () => {
      fixture = await factory.create();
      await fixture.engine.createProject('contract');
      db = await fixture.engine.project('contract');
      await db.changeSchema(async (tx) => {
        for (const table of [THINGS, PARENTS, CHILDREN])
          await tx.changeTable({ before: null, after: table, resetColumns: [] });
      });
    });
    after(() => fixture.dispose());

    describe('values round-trip by type', () => {
      const cases: [string, Record<string, unknown>][] = [
        ['nulls of every type', { t: null, n: null, x: null, b: null, at: null, doc: null }],
        ['text: empty, unicode, quotes', { t: '🦀 日本語 \'quoted\' "double" \\ back %_ é' }],
        ['text: empty string is not null', { t: '' }],
        ['integer: ±(2^53−1) and zero', { n: MAX }],
        ['integer: negative', { n: -MAX }],
        ['integer: zero', { n: 0 }],
        // biome-ignore lint/suspicious/noApproximativeNumericConstant: any fraction will do; this is not π
        ['number: fraction, huge, tiny', { x: 3.14159 }],
        ['number: 1.5e300', { x: 1.5e300 }],
        ['number: -2.5e-300', { x: -2.5e-300 }],
        ['boolean: true', { b: true }],
        ['boolean: false', { b: false }],
        ['timestamp: milliseconds, UTC', { at: STAMP }],
        ['timestamp: year 0000 (1 BC)', { at: '0000-01-01T00:00:00.000Z' }],
        ['timestamp: year 0001 and 9999', { at: '9999-12-31T23:59:59.999Z' }],
        ['json: object with nesting', { doc: { a: 1, b: [true, null, 'x'], c: { d: {} }, ключ: '値' } }],
        ['json: array', { doc: [1, 'two', [], {}] }],
        ['json: string', { doc: 'just a string' }],
        ['json: number and big integer', { doc: { big: MAX, f: 0.1 } }],
        ['json: false', { doc: false }],
      ];
      for (const [label, values] of cases) {
        it(label, async () => {
          const created = await insert(values);
          const [read] = await db.all({
            kind: 'select',
            table: 'things',
            columns: COLUMNS,
            where: sql.eq('id', created!.id),
          });
          for (const [name, value] of Object.entries(values)) {
            assert.deepEqual(created![name], value, `${name} as returned by the insert`);
            assert.deepEqual(read![name], value, `${name} as read back`);
          }
          assert.equal(read!.created_at, STAMP);
        });
      }
    });

    describe('statements', () => {
      before(async () => {
        await db.run({ kind: 'delete', table: 'things', where: sql.bool(true) });
        const rows = [
          ['s1', 'apple', 3, 1.5, true, '2026-01-01T00:00:00.000Z'],
          ['s2', 'Banana', 10, null, false, '2026-06-01T00:00:00.000Z'],
          ['s3', 'cherry', -2, 2.5, null, null],
          ['s4', null, null, 0, true, '2025-01-01T00:00:00.000Z'],
          ['s5', 'Éclair', 7, 7, false, '2026-03-01T12:00:00.000Z'],
        ];
        const columns = [
          c('id', 'text'),
          c('created_at', 'timestamp'),
          c('updated_at', 'timestamp'),
          c('t', 'text'),
          c('n', 'integer'),
          c('x', 'number'),
          c('b', 'boolean'),
          c('at', 'timestamp'),
        ];
        const changed = await db.run({
          kind: 'insert',
          table: 'things',
          columns,
          rows: rows.map(([id, ...rest]) => [id, STAMP, STAMP, ...rest]),
        });
        assert.equal(changed, 5, 'a multi-row insert reports every row');
      });

      it('select with where, order, limit and offset', async () => {
        const rows = await db.all({
          kind: 'select',
          table: 'things',
          columns: [c('id', 'text')],
          where: { kind: 'compare', op: '>', left: sql.column('n'), right: sql.value(0, 'integer') },
          orderBy: [{ column: 'n', descending: true }],
          limit: 2,
          offset: 1,
        });
        assert.deepEqual(ids(rows), ['s5', 's1']);
      });
      it('count with and without where', async () => {
        assert.equal(await db.count({ kind: 'count', table: 'things' }), 5);
        assert.equal(await db.count({ kind: 'count', table: 'things', where: sql.eq('b', true, 'boolean') }), 2);
      });
      it('integers compare with fractional numbers', async () => {
        assert.deepEqual(
          ids(await select({ kind: 'compare', op: '<', left: sql.column('n'), right: sql.value(3.5, 'number') })),
          ['s1', 's3'],
        );
      });
      it('two bound values compare by their type, not as text', async () => {
        const where: Expr = {
          kind: 'compare',
          op: '<',
          left: sql.value(9, 'integer'),
          right: sql.value(10, 'integer'),
        };
        assert.equal(await db.count({ kind: 'count', table: 'things', where }), 5);
      });
      it('timestamps compare with ISO values', async () => {
        assert.deepEqual(
          ids(
            await select({
              kind: 'compare',
              op: '>=',
              left: sql.column('at'),
              right: sql.value('2026-03-01T12:00:00.000Z', 'timestamp'),
            }),
          ),
          ['s2', 's5'],
        );
      });
      it('!= is null-safe: null differs from a value', async () => {
        assert.deepEqual(
          ids(await select({ kind: 'compare', op: '!=', left: sql.column('t'), right: sql.value('apple', 'text') })),
          ['s2', 's3', 's4', 's5'],
        );
      });
      it('in, is null, not, empty and/or', async () => {
        assert.deepEqual(
          ids(
            await select({
              kind: 'in',
              expr: sql.column('n'),
              values: [sql.value(3, 'integer'), sql.value(7, 'integer')],
            }),
          ),
          ['s1', 's5'],
        );
        assert.deepEqual(ids(await select({ kind: 'in', expr: sql.column('n'), values: [] })), []);
        assert.deepEqual(ids(await select(sql.isNull(sql.column('b')))), ['s3']);
        assert.deepEqual(ids(await select(sql.not(sql.isNull(sql.column('t'))))), ['s1', 's2', 's3', 's5']);
        assert.equal((await select({ kind: 'and', items: [] })).length, 5);
        assert.equal((await select({ kind: 'or', items: [] })).length, 0);
      });
      it('case-insensitive LIKE folds ASCII letters only', async () => {
        assert.deepEqual(ids(await select(like('%AN%', true))), ['s2']);
        assert.deepEqual(
          ids(await select(like('é%', true))),
          [],
          'É and é are different letters to LIKE on every engine',
        );
        assert.deepEqual(ids(await select(like('É%', true))), ['s5']);
      });
      it('case-sensitive LIKE, escaped wildcards, negation', async () => {
        assert.deepEqual(ids(await select(like('b%', false))), []);
        assert.deepEqual(ids(await select(like('B_nana', false))), ['s2']);
        assert.deepEqual(ids(await select(like('%\\%%', true))), []);
        assert.deepEqual(ids(await select(like('%a%', true, true))), ['s3', 's4'], 'a negated match includes nulls');
      });
      it('text sorts by code point (binary), nulls first ascending and last descending', async () => {
        const asc = await select(undefined, [{ column: 't', descending: false }]);
        assert.deepEqual(
          asc.map((row) => row.t),
          [null, 'Banana', 'apple', 'cherry', 'Éclair'],
        );
        const desc = await select(undefined, [{ column: 't', descending: true }]);
        assert.deepEqual(
          desc.map((row) => row.t),
          ['Éclair', 'cherry', 'apple', 'Banana', null],
        );
      });
      it('numbers, booleans and timestamps sort with nulls first', async () => {
        assert.deepEqual(
          ids(
            await select(undefined, [
              { column: 'x', descending: false },
              { column: 'id', descending: false },
            ]),
          ),
          ['s2', 's4', 's1', 's3', 's5'],
        );
        assert.deepEqual(
          ids(
            await select(undefined, [
              { column: 'b', descending: false },
              { column: 'id', descending: false },
            ]),
          ),
          ['s3', 's2', 's5', 's1', 's4'],
        );
        assert.deepEqual(ids(await select(undefined, [{ column: 'at', descending: true }])), [
          's2',
          's5',
          's1',
          's4',
          's3',
        ]);
      });
      it('update with an added value, returning the new row', async () => {
        const rows = await db.all({
          kind: 'update',
          table: 'things',
          set: [
            {
              column: c('n', 'integer'),
              value: { kind: 'add', left: sql.column('n'), right: sql.value(1, 'integer') },
            },
          ],
          where: sql.eq('id', 's1'),
          returning: [c('id', 'text'), c('n', 'integer')],
        });
        assert.deepEqual(rows, [{ id: 's1', n: 4 }]);
      });
      it('run reports changed rows; update of nothing is 0', async () => {
        assert.equal(
          await db.run({
            kind: 'update',
            table: 'things',
            set: [{ column: c('b', 'boolean'), value: sql.value(true, 'boolean') }],
            where: sql.eq('b', false, 'boolean'),
          }),
          2,
        );
        assert.equal(
          await db.run({
            kind: 'update',
            table: 'things',
            set: [{ column: c('b', 'boolean'), value: sql.value(true, 'boolean') }],
            where: sql.eq('id', 'none'),
          }),
          0,
        );
      });
      it('insert on conflict do nothing skips duplicates', async () => {
        const columns = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')];
        const changed = await db.run({
          kind: 'insert',
          table: 'things',
          columns,
          rows: [
            ['s1', STAMP, STAMP],
            ['s6', STAMP, STAMP],
          ],
          onConflictDoNothing: true,
        });
        assert.equal(changed, 1);
      });
      it('delete returning', async () => {
        assert.deepEqual(
          await db.all({ kind: 'delete', table: 'things', where: sql.eq('id', 's6'), returning: [c('id', 'text')] }),
          [{ id: 's6' }],
        );
      });
      it('upsert: inserts, updates only where the condition holds on the existing row, and says which', async () => {
        const columns = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')];
        const upsert = (id: string, code: string, t: string, where?: Expr) =>
          db.all({
            kind: 'insert',
            table: 'things',
            columns: [...columns, c('code', 'text'), c('t', 'text')],
            rows: [[id, STAMP, STAMP, code, t]],
            returning: [c('id', 'text'), c('t', 'text')],
            onConflictUpdate: { target: 'code', update: [c('t', 'text')], ...(where && { where }) },
          });
        assert.deepEqual(await upsert('u1', 'up-code', 'first'), [{ id: 'u1', t: 'first', _rb_inserted: true }]);
        assert.deepEqual(await upsert('u2', 'up-code', 'second'), [{ id: 'u1', t: 'second', _rb_inserted: false }]);
        // The condition reads the existing row (t = 'second'), not the one that was not inserted.
        assert.deepEqual(await upsert('u3', 'up-code', 'third', sql.eq('t', 'third')), []);
        assert.deepEqual(await upsert('u4', 'up-code', 'fourth', sql.eq('t', 'second')), [
          { id: 'u1', t: 'fourth', _rb_inserted: false },
        ]);
        // A conflict on another unique column is not the target's: it fails as an insert.
        await assert.rejects(upsert('u1', 'other-code', 'x'), expectStoreError('unique'));
        assert.equal(await db.run({ kind: 'delete', table: 'things', where: sql.eq('id', 'u1') }), 1);
      });
      it('upsert with a fresh column: a row holding the id it sent was inserted, another updated', async () => {
        const columns = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')];
        const upsert = (rows: (readonly unknown[])[]) =>
          db.transaction((tx) =>
            tx.all({
              kind: 'insert',
              table: 'things',
              columns: [...columns, c('code', 'text'), c('t', 'text')],
              rows,
              returning: [c('id', 'text'), c('code', 'text'), c('t', 'text')],
              onConflictUpdate: { target: 'code', update: [c('t', 'text')], freshColumn: 'id' },
            }),
          );
        const byCode = (rows: Row[]) => [...rows].sort((x, y) => String(x.code).localeCompare(String(y.code)));
        assert.deepEqual(await upsert([['f1', STAMP, STAMP, 'fresh-a', 'one']]), [
          { id: 'f1', code: 'fresh-a', t: 'one', _rb_inserted: true },
        ]);
        assert.deepEqual(await upsert([['f2', STAMP, STAMP, 'fresh-a', 'two']]), [
          { id: 'f1', code: 'fresh-a', t: 'two', _rb_inserted: false },
        ]);
        assert.deepEqual(
          byCode(
            await upsert([
              ['f3', STAMP, STAMP, 'fresh-a', 'three'],
              ['f4', STAMP, STAMP, 'fresh-b', 'four'],
            ]),
          ),
          [
            { id: 'f1', code: 'fresh-a', t: 'three', _rb_inserted: false },
            { id: 'f4', code: 'fresh-b', t: 'four', _rb_inserted: true },
          ],
        );
        const fresh: Expr = {
          kind: 'like',
          expr: sql.column('code'),
          pattern: 'fresh-%',
          caseInsensitive: false,
          negated: false,
        };
        assert.equal(await db.run({ kind: 'delete', table: 'things', where: fresh }), 2);
      });
      it('a text value holding U+0000 matches nothing and errs nowhere in conditions', async () => {
        assert.deepEqual(await select(sql.eq('t', 'a\u0000')), []);
        assert.equal(
          (await select({ kind: 'compare', op: '!=', left: sql.column('t'), right: sql.value('a\u0000', 'text') }))
            .length,
          5,
        );
        assert.deepEqual(
          ids(
            await select({ kind: 'compare', op: '<', left: sql.column('t'), right: sql.value('apple\u0000', 'text') }),
          ),
          ['s1', 's2'],
        );
      });
      it('a multi-row insert larger than one statement can bind is written whole', async () => {
        const columns = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp'), c('t', 'text')];
        const rows = Array.from({ length: 12_000 }, (_, i) => [`bulk-${i}`, STAMP, STAMP, `row ${i}`]);
        await db.transaction(async (tx) =>
          assert.equal(await tx.run({ kind: 'insert', table: 'things', columns, rows }), 12_000),
        );
        assert.equal(await db.run({ kind: 'delete', table: 'things', where: like('row %', false) }), 12_000);
      });
      it('a multi-row insert with RETURNING reads back every row decoded; a single-row one after it too', async () => {
        const columns = [
          c('id', 'text'),
          c('created_at', 'timestamp'),
          c('updated_at', 'timestamp'),
          c('t', 'text'),
          c('b', 'boolean'),
          c('doc', 'json'),
        ];
        // `n` is not inserted: the engine must read the rows back rather than echo what it bound.
        const returning = [c('id', 'text'), c('t', 'text'), c('b', 'boolean'), c('doc', 'json'), c('n', 'integer')];
        const rows = [
          ['ret-1', STAMP, STAMP, 'one', true, { a: 1 }],
          ['ret-2', STAMP, STAMP, null, false, null],
          ['ret-3', STAMP, STAMP, 'three', false, [1, 2]],
        ];
        const read = await db.transaction((tx) =>
          tx.all({ kind: 'insert', table: 'things', columns, rows, returning }),
        );
        assert.deepEqual(
          [...read].sort((x, y) => String(x.id).localeCompare(String(y.id))),
          [
            { id: 'ret-1', t: 'one', b: true, doc: { a: 1 }, n: null },
            { id: 'ret-2', t: null, b: false, doc: null, n: null },
            { id: 'ret-3', t: 'three', b: false, doc: [1, 2], n: null },
          ],
        );
        const single = await db.first({
          kind: 'insert',
          table: 'things',
          columns,
          rows: [['ret-4', STAMP, STAMP, 'four', true, { b: 2 }]],
          returning,
        });
        assert.deepEqual(single, { id: 'ret-4', t: 'four', b: true, doc: { b: 2 }, n: null });
        assert.equal(
          await db.run({
            kind: 'delete',
            table: 'things',
            where: { kind: 'like', expr: sql.column('id'), pattern: 'ret-%', caseInsensitive: false, negated: false },
          }),
          4,
        );
      });
      it('a multi-row insert with RETURNING of 250 rows, every 7th with a null, reads back each row once', async () => {
        const columns = [
          c('id', 'text'),
          c('created_at', 'timestamp'),
          c('updated_at', 'timestamp'),
          c('t', 'text'),
          c('n', 'integer'),
        ];
        const rows = Array.from({ length: 250 }, (_, i) => [
          `many-${String(i).padStart(3, '0')}`,
          STAMP,
          STAMP,
          i % 7 === 0 ? null : `t${i}`,
          i,
        ]);
        const read = await db.transaction((tx) =>
          tx.all({
            kind: 'insert',
            table: 'things',
            columns,
            rows,
            returning: [c('id', 'text'), c('t', 'text'), c('n', 'integer'), c('x', 'number')],
          }),
        );
        const expected = rows.map(([id, , , t, n]) => ({ id, t, n, x: null }));
        assert.deepEqual(
          [...read].sort((a, b) => String(a.id).localeCompare(String(b.id))),
          expected,
        );
        assert.equal(
          await db.run({
            kind: 'delete',
            table: 'things',
            where: { kind: 'like', expr: sql.column('id'), pattern: 'many-%', caseInsensitive: false, negated: false },
          }),
          250,
        );
      });
    });

    describe('constraint failures are StoreError kinds', () => {
      it('duplicate primary key → unique on id', async () => {
        await insert({ id: 'dup' });
        await assert.rejects(insert({ id: 'dup' }), expectStoreError('unique', 'id'));
      });
      it('duplicate unique column → unique naming the column', async () => {
        await insert({ code: 'X1' });
        await assert.rejects(insert({ code: 'X1' }), expectStoreError('unique', 'code'));
      });
      it('missing required value → not-null', async () => {
        await assert.rejects(
          db.run({
            kind: 'insert',
            table: 'children',
            columns: [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')],
            rows: [['c0', STAMP, STAMP]],
          }),
          expectStoreError('not-null', 'label'),
        );
      });
      it('dangling reference → reference; deleting a referenced row (restrict) → reference', async () => {
        const cols = [c('id', 'text'), c('created_at', 'timestamp'), c('updated_at', 'timestamp')];
        await assert.rejects(
          db.run({
            kind: 'insert',
            table: 'children',
            columns: [...cols, c('parent', 'text'), c('label', 'text')],
            rows: [['c1', STAMP, STAMP, 'nobody', 'l']],
          }),
          expectStoreError('reference'),
        );
        await db.run({ kind: 'insert', table: 'parents', columns: cols, rows: [['p1', STAMP, STAMP]] });
        await db.run({
          kind: 'insert',
          table: 'children',
          columns: [...cols, c('parent', 'text'), c('label', 'text')],
          rows: [['c2', STAMP, STAMP, 'p1', 'l']],
        });
        await assert.rejects(
          db.run({ kind: 'delete', table: 'parents', where: sql.eq('id', 'p1') }),
          expectStoreError('reference'),
        );
      });
      it('a value of the wrong type for its column → check', async () => {
        await assert.rejects(insert({ n: 'not a number' }), expectStoreError('check'));
      });
    });

    describe('transactions', () => {
      it('commit when the work resolves', async () => {
        await db.transaction(async (tx) => {
          await tx.run({
            kind: 'insert',
            table: 'things',
            columns: COLUMNS.slice(0, 3),
            rows: [['tx-ok', STAMP, STAMP]],
          });
        });
        assert.equal(await db.count({ kind: 'count', table: 'things', where: sql.eq('id', 'tx-ok') }), 1);
      });
      it('roll back every statement when the work throws, and rethrow its error', async () => {
        const failure = new Error('work failed');
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.run({
              kind: 'insert',
              table: 'things',
              columns: COLUMNS.slice(0, 3),
              rows: [['tx-a', STAMP, STAMP]],
            });
            await tx.run({
              kind: 'update',
              table: 'things',
              set: [{ column: c('t', 'text'), value: sql.value('changed', 'text') }],
              where: sql.eq('id', 'tx-ok'),
            });
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.equal(await db.count({ kind: 'count', table: 'things', where: sql.eq('id', 'tx-a') }), 0);
        assert.equal((await select(sql.eq('id', 'tx-ok')))[0]!.t, null);
      });
      it('a constraint failure inside rolls back the earlier statements', async () => {
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.run({
              kind: 'insert',
              table: 'things',
              columns: COLUMNS.slice(0, 3),
              rows: [['tx-b', STAMP, STAMP]],
            });
            await tx.run({
              kind: 'insert',
              table: 'things',
              columns: COLUMNS.slice(0, 3),
              rows: [['tx-b', STAMP, STAMP]],
            });
          }),
          expectStoreError('unique', 'id'),
        );
        assert.equal(await db.count({ kind: 'count', table: 'things', where: sql.eq('id', 'tx-b') }), 0);
      });
      it('concurrent transactions each see their own writes and commit both', async () => {
        await Promise.all(
          ['tx-c', 'tx-d'].map((id) =>
            db.transaction(async (tx) => {
              await tx.run({
                kind: 'insert',
                table: 'things',
                columns: COLUMNS.slice(0, 3),
                rows: [[id, STAMP, STAMP]],
              });
              assert.equal(await tx.count({ kind: 'count', table: 'things', where: sql.eq('id', id) }), 1);
            }),
          ),
        );
        assert.equal(
          await db.count({
            kind: 'count',
            table: 'things',
            where: {
              kind: 'in',
              expr: sql.column('id'),
              values: [sql.value('tx-c', 'text'), sql.value('tx-d', 'text')],
            },
          }),
          2,
        );
      });
    });
  });
}
