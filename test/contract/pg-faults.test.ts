/**
 * The PostgreSQL engine's fault handling, on a real server (TEST_DATABASE_URL, a fresh
 * database of this file's own): every wait is bounded and ends in a StoreError kind that the
 * HTTP layer answers 503, and a connection that dies while a request holds it neither ends
 * the process nor poisons the pool, and the LISTEN connection comes
 * back by itself. (Stopping a whole server under traffic, over HTTP:
 * test/e2e/pg-outage.test.ts.) Skipped visibly without a PostgreSQL server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sql } from '../../src/query/sql-tree.js';
import { buildPostgresEngine, type PostgresEngine } from '../../src/store/postgres/pg-engine.js';
import { ListenConnection } from '../../src/store/postgres/pg-listen-connection.js';
import { StoreError, type ProjectDatabase } from '../../src/store/types.js';
import { eventually } from '../helpers/eventually.js';
import { tableOf } from '../helpers/storage-engines.js';
import { createTestDatabase, isPostgresReachable, type TestDatabase } from '../helpers/test-database.js';

const reachable = (await isPostgresReachable()) || process.env.ROWBASE_REQUIRE_POSTGRES === '1';
if (!reachable) console.log('SKIPPED: PostgreSQL fault tests (no PostgreSQL server; set TEST_DATABASE_URL)');

const isKind = (kind: StoreError['kind']) => (error: unknown) => error instanceof StoreError && error.kind === kind;
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
/** Polls `check` every 20 ms for up to 5 s; fails the test if it never holds. */
const waitFor = async (check: () => boolean): Promise<void> => {
  await eventually(check, { everyMs: 20 });
};
const select = { kind: 'select', table: 'notes', columns: [{ name: 'id', type: 'text' }] } as const;
const NOW = '2026-01-01T00:00:00.000Z';
const insert = (id: string) =>
  ({
    kind: 'insert',
    table: 'notes',
    columns: ['id', 'title', 'created_at', 'updated_at'].map((name) => ({ name, type: 'text' as const })),
    rows: [[id, id, NOW, NOW]],
  }) as const;

describe('PostgreSQL engine faults', { skip: !reachable }, () => {
  let database: TestDatabase;
  let raw: pg.Client;
  let engine: PostgresEngine;
  let db: ProjectDatabase;
  const errors: unknown[] = [];

  before(async () => {
    database = await createTestDatabase();
    raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    engine = await buildPostgresEngine({
      url: database.url,
      maxConnections: 2,
      statementTimeoutMs: 300,
      poolTimeoutMs: 300,
      onError: (error) => errors.push(error),
    });
    await engine.createProject('faults');
    db = await engine.project('faults');
    await db.changeSchema((tx) =>
      tx.changeTable({ before: null, after: tableOf('notes', [{ name: 'title' }]), resetColumns: [] }),
    );
  });

  after(async () => {
    await engine?.close();
    await raw?.end();
    await database?.drop();
  });

  /** Ends every connection the engine holds (as a server restart or a network fault would). */
  const killConnections = async (): Promise<number> => {
    const result = await raw.query(
      'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity ' +
        "WHERE datname = current_database() AND application_name = 'rowbase'",
    );
    return result.rows[0].n;
  };

  it('a statement past the statement timeout (blocked by a lock) → StoreError busy, within the bound', async () => {
    await raw.query('BEGIN');
    await raw.query('LOCK TABLE p_faults.notes IN ACCESS EXCLUSIVE MODE');
    try {
      const started = Date.now();
      await assert.rejects(db.all(select), isKind('busy'));
      assert.ok(Date.now() - started < 3_000, `answered after ${Date.now() - started} ms`);
    } finally {
      await raw.query('ROLLBACK');
    }
    assert.deepEqual(await db.all(select), [], 'the engine works once the lock is gone');
  });

  it('every pooled connection held past the pool timeout → StoreError busy for the next caller, at once', async () => {
    const hold = deferred();
    const holders = [1, 2].map(() =>
      db.transaction(async (tx) => {
        await tx.all(select);
        await hold.promise;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await assert.rejects(db.all(select), isKind('busy'));
    assert.ok(Date.now() - started < 2_000, `answered after ${Date.now() - started} ms`);
    hold.resolve();
    await Promise.all(holders);
    assert.deepEqual(await db.all(select), []);
  });

  it('a connection killed mid-transaction → StoreError unavailable; the process lives, the next works', async () => {
    const killed = db.transaction(async (tx) => {
      await tx.run(insert('lost'));
      // The connection dies while this request holds it and runs no statement: pg emits 'error' on the client.
      assert.ok((await killConnections()) >= 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return tx.all(select);
    });
    await assert.rejects(killed, isKind('unavailable'));
    const rows = await db.all(select);
    assert.deepEqual(rows, [], 'the interrupted transaction left nothing');
    await db.transaction((tx) => tx.run(insert('kept')));
    assert.deepEqual(
      (await db.all(select)).map((row) => row.id),
      ['kept'],
    );
  });

  it('the LISTEN connection, killed: onLost, onReconnect, LISTENs again, delivers the next notifications', async () => {
    const connection = new ListenConnection({ connectionString: database.url });
    const received: string[] = [];
    const events: string[] = [];
    connection.onLost(() => events.push('lost'));
    connection.onReconnect(() => events.push('reconnected'));
    await connection.listen('faults_test', (payload) => received.push(payload));
    await connection.start();
    try {
      await raw.query("SELECT pg_notify('faults_test', 'before')");
      await waitFor(() => received.includes('before'));
      const killed = await raw.query(
        'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity ' +
          "WHERE datname = current_database() AND application_name = 'rowbase-listen'",
      );
      assert.ok(killed.rows[0].n >= 1, 'this connection (and the engine’s own) ended');
      await waitFor(() => events.includes('reconnected'));
      assert.deepEqual(events, ['lost', 'reconnected']);
      assert.ok(connection.listening);
      await raw.query("SELECT pg_notify('faults_test', 'after')");
      await waitFor(() => received.includes('after'));
      assert.deepEqual(received, ['before', 'after']);
    } finally {
      await connection.close();
    }
  });

  it('idle pooled connections killed → the next statements reconnect (at most one 503-worthy error each)', async () => {
    await db.all(select);
    await killConnections();
    await new Promise((resolve) => setTimeout(resolve, 200));
    let answered = false;
    for (let attempt = 0; attempt < 3 && !answered; attempt++) {
      try {
        await db.all({ ...select, where: sql.eq('id', 'kept') });
        answered = true;
      } catch (error) {
        assert.ok(isKind('unavailable')(error), String(error));
      }
    }
    assert.ok(answered, 'the engine answers again after the pool replaced its connections');
    assert.ok(await engine.ping());
  });
});
