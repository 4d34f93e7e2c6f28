/**
 * How a process learns of another process's events on PostgreSQL (docs/realtime.md "Delivery"
 * and "Order"): woken by NOTIFY on its LISTEN connection, and reading the shared log in number
 * order, waiting at a number that is still being committed.
 *
 * - The LISTEN connection is cut (pg_terminate_backend) under an open stream: writes of the
 *   other process made while it is down and after it is back reach the stream, each once, with
 *   no gap, and the connection comes back by itself.
 * - A number taken by a transaction that commits late (after a higher one) is waited for, not
 *   skipped: even when that transaction got its id after the last one to finish, which a
 *   snapshot's xmax does not cover.
 * @engine postgres — the PostgreSQL pass only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startProcessPair, type ProcessPair } from '../helpers/process-pair.js';
import { call, type ServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { holdLowerEntry } from '../helpers/held-log-entries.js';
import { openStream, type SseEvent, type SseStream } from '../helpers/sse-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('realtime reading the shared PostgreSQL log', () => {
  let pair: ProcessPair;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: Record<string, string>;
  let sql: pg.Client;
  const streams: SseStream[] = [];
  const project = 'shared-log';
  const schema = 'p_shared_log';

  before(async () => {
    pair = await startProcessPair(project);
    ({ a, b, admin } = pair);
    const table = await call(a.url, 'PUT', `/p/${project}/v1/tables/items`, admin, {
      columns: [{ name: 'n', type: 'integer' }],
      rules: { list: '' },
    });
    assert.equal(table.status, 201, JSON.stringify(table.body));
    sql = new pg.Client({ connectionString: pair.database.url });
    await sql.connect();
  });

  after(async () => {
    for (const stream of streams) stream.close();
    await sql?.end().catch(() => undefined);
    await pair?.stop();
  });

  async function subscribe(server: ServerProcess): Promise<SseStream> {
    const stream = await openStream(server.url, project);
    streams.push(stream);
    const bound = await call(server.url, 'POST', `/p/${project}/realtime`, admin, {
      client_id: stream.clientId,
      subscriptions: ['items'],
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    return stream;
  }

  const write = async (server: ServerProcess, n: number) => {
    const created = await call(server.url, 'POST', `/p/${project}/api/items`, admin, { n });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };

  /** The LISTEN connections of both processes (application_name set by pg-listen-connection.ts). */
  const listeners = async (): Promise<number[]> =>
    (
      await sql.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rowbase-listen'",
      )
    ).rows.map((row: { pid: number }) => row.pid);

  const numbers = (events: SseEvent[]) => events.map((event) => event.json.record.n as number);

  function assertOnceInOrder(events: SseEvent[], expected: number[]): void {
    assert.deepEqual(numbers(events), expected, 'each write once, in commit order');
    const ids = events.map((event) => Number(event.id));
    assert.deepEqual(
      ids,
      ids.map((_, i) => ids[0]! + i),
      'event ids follow each other: no gap',
    );
  }

  it("a cut LISTEN connection: the other process's writes during and after reach the stream once", async () => {
    const stream = await subscribe(a);
    for (let n = 1; n <= 3; n++) await write(b, n);
    await stream.waitFor(3, undefined, 10_000);

    const cut = await listeners();
    assert.equal(cut.length, 2, 'one LISTEN connection per process');
    await sql.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [cut]);
    // Written at once: the connections are down (a reconnect takes at least 100 ms).
    for (let n = 4; n <= 6; n++) await write(b, n);

    await eventually(async () => (await listeners()).filter((pid) => !cut.includes(pid)).length === 2, {
      timeoutMs: 10_000,
      what: 'both processes to listen again by themselves',
    });
    for (let n = 7; n <= 9; n++) await write(b, n);

    await stream.waitFor(9, undefined, 10_000);
    // A later write it must see: a doubled event before it would show by then.
    await write(b, 10);
    await stream.waitFor(10, undefined, 10_000);
    assertOnceInOrder(stream.received(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a number whose transaction commits after a higher one is delivered first, not skipped', async () => {
    const stream = await subscribe(a);
    const early = new pg.Client({ connectionString: pair.database.url });
    const late = new pg.Client({ connectionString: pair.database.url });
    await Promise.all([early.connect(), late.connect()]);
    try {
      // `late` gets its transaction id after `early`, takes the lower number, and commits last.
      await holdLowerEntry(schema, early, late, [101, 102]);
      // Process A now sees `high` without `low`: it must wait (well past its retries and polls).
      await sleep(2_500);
      assert.deepEqual(numbers(stream.received()), [], 'nothing passes a number still being committed');
      await late.query('COMMIT');
      await stream.waitFor(2, undefined, 10_000);
      // A later write it must see: a doubled event before it would show by then.
      await write(a, 103);
      await stream.waitFor(3, undefined, 10_000);
      assertOnceInOrder(stream.received(), [101, 102, 103]);
    } finally {
      await early.query('ROLLBACK').catch(() => undefined);
      await late.query('ROLLBACK').catch(() => undefined);
      await Promise.all([early.end(), late.end()]);
    }
  });
});
