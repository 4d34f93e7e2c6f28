/**
 * The realtime event log on every engine (src/changes/event-log.ts, docs/realtime.md): the
 * trim removes only entries older than its cutoff, numbers are never given twice (not even
 * once the trim emptied the log, nor after the engine is closed and opened again), the numbers
 * a bulk append hands out are the ones its entries are stored under, a write that logs its own
 * rows (`Executor.writeLoggingRows`) logs each exactly as the row reads back, and a
 * SQLite project database from before migration 5 opens with its entries and without the
 * index on created_at.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { appendRowChanges, readEvents, readLogState, trimEvents, type RowChange } from '../../src/changes/event-log.js';
import { buildSqliteEngine } from '../../src/store/sqlite/sqlite-engine.js';
import type { ProjectDatabase } from '../../src/store/types.js';
import { sql, type ColumnRef, type Expr, type ValueType } from '../../src/query/sql-tree.js';
import { contractEngines, tableOf, type EngineFixture } from '../helpers/storage-engines.js';

const column = (name: string, type: ValueType): ColumnRef => ({ name, type });
/** A table with a column of every type, and its readable columns in order. */
const KINDS = tableOf('kinds', [
  { name: 'grp' },
  { name: 't' },
  { name: 'n', type: 'integer' },
  { name: 'x', type: 'number' },
  { name: 'b', type: 'boolean' },
  { name: 'at', type: 'timestamp' },
  { name: 'doc', type: 'json' },
]);
const KIND_COLUMNS: readonly ColumnRef[] = [
  column('id', 'text'),
  column('created_at', 'timestamp'),
  column('updated_at', 'timestamp'),
  column('grp', 'text'),
  column('t', 'text'),
  column('n', 'integer'),
  column('x', 'number'),
  column('b', 'boolean'),
  column('at', 'timestamp'),
  column('doc', 'json'),
];
const KIND_ROWS: readonly Record<string, unknown>[] = [
  { id: 'k1', grp: 'g', t: 'quote " back \\ \n é 😀 \u0001', n: -9007199254740991, x: 1.5, b: true },
  { id: 'k2', grp: 'g', t: "it's", n: 0, x: 0.1, b: false, at: '0000-01-01T00:00:00.000Z', doc: { a: [1, 'é'] } },
  { id: 'k3', grp: 'g', x: 1e300, at: '9999-12-31T23:59:59.999Z', doc: 'text' },
  { id: 'k4', grp: 'other', t: 'untouched' },
];

const change = (n: number): RowChange => ({ table: 'items', action: 'create', record: { id: `r${n}`, n } });
const at = (minute: number) => `2026-01-31T09:${String(minute).padStart(2, '0')}:00.000Z`;

async function append(db: ProjectDatabase, n: number, createdAt: string): Promise<number> {
  const [event] = await db.transaction((tx) => appendRowChanges(tx, [change(n)], createdAt));
  return event!.seq;
}

for (const factory of await contractEngines()) {
  describe(`event log on ${factory.name}`, () => {
    let fixture: EngineFixture;
    let counter = 0;
    const freshProject = async () => {
      const id = `log-${++counter}`;
      await fixture.engine.createProject(id);
      return fixture.engine.project(id);
    };
    before(async () => {
      fixture = await factory.create();
    });
    after(() => fixture.dispose());

    it('the trim removes entries older than the cutoff and keeps the rest, a late-stamped one included', async () => {
      const db = await freshProject();
      // Minutes 1, 2, 5, then 3 (a write whose request started earlier), then 6.
      const seqs = [];
      for (const [n, minute] of [
        [1, 1],
        [2, 2],
        [3, 5],
        [4, 3],
        [5, 6],
      ] as const)
        seqs.push(await append(db, n, at(minute)));
      const bounds = await trimEvents(db, at(4));
      assert.deepEqual(bounds, { lastSeq: seqs[4], trimmedThrough: seqs[1] });
      assert.deepEqual(
        (await readEvents(db, 0, 10)).map((e) => e.seq),
        seqs.slice(2),
        'nothing at or after the cutoff is removed',
      );
      assert.deepEqual(await trimEvents(db, at(4)), bounds, 'a second trim changes nothing');
    });

    it('numbers are never given twice: after the trim emptied the log, the next entry is numbered above', async () => {
      const db = await freshProject();
      const first = await append(db, 1, at(1));
      const second = await append(db, 2, at(2));
      assert.deepEqual(await trimEvents(db, at(59)), { lastSeq: second, trimmedThrough: second });
      assert.deepEqual(await readEvents(db, 0, 10), []);
      const third = await append(db, 3, at(3));
      assert.ok(first < second && second < third, `${first} < ${second} < ${third}`);
      assert.deepEqual(await readLogState(db), { lastSeq: third, trimmedThrough: second });
    });

    it('a write logging its own rows: one entry each, the record as read back, numbers up to lastSeq', async () => {
      const db = await freshProject();
      await db.changeSchema((tx) => tx.changeTable({ before: null, after: KINDS, resetColumns: [] }));
      const stamp = at(1);
      await db.run({
        kind: 'insert',
        table: 'kinds',
        columns: KIND_COLUMNS,
        rows: KIND_ROWS.map((row) =>
          KIND_COLUMNS.map((c) => ({ created_at: stamp, updated_at: stamp, ...row })[c.name] ?? null),
        ),
      });
      const inGroup: Expr = sql.eq('grp', 'g');
      const read = () =>
        db.all({
          kind: 'select',
          table: 'kinds',
          columns: KIND_COLUMNS,
          where: inGroup,
          orderBy: [{ column: 'id', descending: false }],
        });
      const logged = async (after: number) =>
        (await readEvents(db, after, 100)).map((event) => {
          const { action, record } = event.change as RowChange;
          return { seq: event.seq, action, record };
        });
      const start = (await readLogState(db)).lastSeq;

      const updated = await db.transaction((tx) =>
        tx.writeLoggingRows(
          {
            kind: 'update',
            table: 'kinds',
            set: [
              { column: column('b', 'boolean'), value: sql.value(null, 'boolean') },
              { column: column('doc', 'json'), value: sql.value({ set: 'é"' }, 'json') },
              { column: column('updated_at', 'timestamp'), value: sql.value(at(2), 'timestamp') },
            ],
            where: inGroup,
          },
          { createdAt: at(2), record: KIND_COLUMNS },
        ),
      );
      const after = await read();
      const updates = await logged(start);
      assert.equal(updated.count, 3);
      assert.equal(updated.lastSeq, updates.at(-1)?.seq);
      assert.ok(updates.every((entry) => entry.action === 'update'));
      const byId = (a: { record: Record<string, unknown> }, b: { record: Record<string, unknown> }) =>
        String(a.record.id).localeCompare(String(b.record.id));
      assert.deepEqual(
        updates.sort(byId).map((entry) => entry.record),
        after,
      );

      const deleted = await db.transaction((tx) =>
        tx.writeLoggingRows(
          { kind: 'delete', table: 'kinds', where: inGroup },
          { createdAt: at(3), record: KIND_COLUMNS },
        ),
      );
      const deletes = await logged(updated.lastSeq!);
      assert.equal(deleted.count, 3);
      assert.equal(deleted.lastSeq, deletes.at(-1)?.seq);
      assert.deepEqual(
        deletes.sort(byId).map((entry) => entry.record),
        after,
      );
      assert.deepEqual(await read(), []);

      const none = await db.transaction((tx) =>
        tx.writeLoggingRows(
          { kind: 'delete', table: 'kinds', where: inGroup },
          { createdAt: at(4), record: KIND_COLUMNS },
        ),
      );
      assert.deepEqual(none, { count: 0, lastSeq: undefined });
      assert.equal((await readLogState(db)).lastSeq, deleted.lastSeq);
    });

    it('1,250 entries in one bulk after a trim emptied the log: each number given is the one stored', async () => {
      const db = await freshProject();
      await append(db, 0, at(1));
      await trimEvents(db, at(59));
      const changes = Array.from({ length: 1250 }, (_, n) => change(n + 1));
      const given = await db.transaction((tx) => appendRowChanges(tx, changes, at(2)));
      assert.deepEqual(
        given.map((e) => (e.change as RowChange).record.n),
        changes.map((c) => c.record.n),
      );
      const stored = await readEvents(db, 0, 2000);
      assert.deepEqual(
        stored.map((e) => [e.seq, (e.change as RowChange).record.n]),
        given.map((e) => [e.seq, (e.change as RowChange).record.n]),
      );
      assert.ok(
        given.every((e, i) => i === 0 || e.seq > given[i - 1]!.seq),
        'numbers rise in row order',
      );
    });
  });
}

describe('event log of a SQLite project database from before migration 5', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-event-log-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('opens with its entries, without the created_at index, and goes on numbering above them', async () => {
    const open = () => buildSqliteEngine({ dataDir, synchronous: 'normal', maxOpenProjects: 4 });
    let engine = open();
    await engine.createProject('old-log');
    const db = await engine.project('old-log');
    const seqs = [await append(db, 1, at(1)), await append(db, 2, at(2))];
    await engine.close();
    // As the file was at migration 4: with the index every write maintained.
    const file = new Database(path.join(dataDir, 'projects', 'old-log.db'));
    file.exec('CREATE INDEX _rb_events_created ON _rb_events (created_at)');
    file.pragma('user_version = 4');
    file.close();

    engine = open();
    try {
      const reopened = await engine.project('old-log');
      assert.deepEqual(
        (await readEvents(reopened, 0, 10)).map((e) => e.seq),
        seqs,
      );
      const next = await append(reopened, 3, at(3));
      assert.ok(next > seqs[1]!, `${next} after ${seqs[1]}`);
    } finally {
      await engine.close();
    }
    const check = new Database(path.join(dataDir, 'projects', 'old-log.db'), { readonly: true });
    try {
      assert.equal(
        check
          .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '_rb_events_created'")
          .pluck()
          .get(),
        0,
      );
      assert.equal(check.pragma('user_version', { simple: true }), 5);
    } finally {
      check.close();
    }
  });
});
