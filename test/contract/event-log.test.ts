/**
 * The realtime event log on every engine (src/changes/event-log.ts, docs/realtime.md): the
 * trim removes only entries older than its cutoff, numbers are never given twice (not even
 * once the trim emptied the log, nor after the engine is closed and opened again), the numbers
 * a bulk append hands out are the ones its entries are stored under, and a
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
import { contractEngines, type EngineFixture } from '../helpers/storage-engines.js';

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
