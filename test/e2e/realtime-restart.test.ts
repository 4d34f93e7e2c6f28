/**
 * Realtime across a restart of the server (issue 21, defect 2): a stream's `since` from before
 * a SIGTERM resumes on the restarted process (same data folder, same port) with every event
 * after it, on SQLite as on PostgreSQL, and writes made right after the restart (at once,
 * and again about a second later) each reach the subscribers exactly once, in order, whether
 * the client is back before them or only after them, with four writers at once too. On
 * PostgreSQL, a number still committing when the restarted process starts reading the log is
 * delivered in its place, not skipped.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import {
  call,
  freePort,
  PROCESS_PLATFORM_KEY,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { holdLowerEntry } from '../helpers/held-log-entries.js';
import { openStream, type SseEvent, type SseStream } from '../helpers/sse-client.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

const PROJECT = 'restart';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('realtime across a server restart', () => {
  const dirs: string[] = [];
  const children: ServerProcess[] = [];
  const streams: SseStream[] = [];
  let database: TestDatabase | undefined;
  after(async () => {
    for (const stream of streams) stream.close();
    for (const server of children)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await Promise.all(children.map((server) => server.exited));
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a stream as a reconnecting client does: again and again until the server answers. */
  async function reconnect(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    const stream = await eventually(() => openStream(url, PROJECT, headers), {
      timeoutMs: 30_000,
      what: 'the server to answer a stream',
    });
    streams.push(stream);
    return stream;
  }

  /** Binds `stream` to the items topic with the admin key, resuming after `since` when given. */
  async function subscribe(url: string, stream: SseStream, since?: string): Promise<void> {
    const bound = await call(url, 'POST', `/p/${PROJECT}/realtime`, admin, {
      client_id: stream.clientId,
      subscriptions: ['items'],
      ...(since !== undefined && { since }),
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
  }

  const rows = (events: readonly SseEvent[]) => events.map((e) => (e.event === 'items' ? e.json.record.n : e.event));

  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  let admin: Record<string, string>;
  /** The id of the last event the subscribers saw before the restart. */
  let last: string;
  /** Barrier writes (a later event a stream must see) are numbered from here, above every other write. */
  let nextBarrier = 10_000;
  const isBarrier = (e: SseEvent) => e.event === 'items' && e.json.record.n >= 10_000;
  const write = async (n: number) =>
    assert.equal((await call(server.url, 'POST', `/p/${PROJECT}/api/items`, admin, { n })).status, 201);

  /** Two subscribers see `numbers` written, then the server stops (SIGTERM) and their streams end. */
  async function subscribeWriteAndStop(numbers: readonly number[]): Promise<void> {
    const subscribers = [await reconnect(server.url), await reconnect(server.url)];
    for (const stream of subscribers) await subscribe(server.url, stream);
    for (const n of numbers) await write(n);
    const seen = await Promise.all(subscribers.map((stream) => stream.waitFor(numbers.length, undefined, 10_000)));
    assert.deepEqual(seen.map(rows), [numbers, numbers]);
    last = seen[0]!.at(-1)!.id!;
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
    await Promise.all(subscribers.map((stream) => stream.waitForEnd(10_000)));
  }

  async function restart(): Promise<void> {
    server = await startServerProcess(dataDir, env);
    children.push(server);
  }

  /** Every event after `last`, once, in order, no reset, with ids above `last`. */
  async function assertResumed(stream: SseStream, numbers: readonly number[]): Promise<void> {
    const events = await stream.waitFor(numbers.length, (e) => e.event === 'items', 10_000);
    // A later write it must see: a duplicate or a reset before it would show by then.
    await write(nextBarrier++);
    assert.deepEqual(
      rows(await stream.before(isBarrier, 10_000)),
      numbers,
      'every event after since once, in order, and no reset',
    );
    const ids = events.map((e) => Number(e.id));
    assert.ok(ids[0]! > Number(last), `ids keep increasing across the restart (${last} then ${ids.join(', ')})`);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
  }

  it('clients back once the new process listens: since resumes; writes now and ~1 s later arrive once', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-rt-restart-'));
    dirs.push(dataDir);
    database = testEngine() === 'postgres' ? await createTestDatabase() : undefined;
    env = { PORT: String(await freePort()), ...(database && { DATABASE_URL: database.url }) };
    server = await startServerProcess(dataDir, env);
    children.push(server);
    const created = await call(
      server.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PROCESS_PLATFORM_KEY },
      { name: PROJECT, id: PROJECT },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    admin = { 'x-admin-key': created.body.data.admin_key as string };
    const table = await call(server.url, 'PUT', `/p/${PROJECT}/v1/tables/items`, admin, {
      columns: [{ name: 'n', type: 'integer' }],
    });
    assert.equal(table.status, 201, JSON.stringify(table.body));
    await subscribeWriteAndStop([1, 2, 3]);

    // One client resumes with `since` in its POST and keeps reconnecting from the moment the
    // server is gone, so it is back as soon as the new process listens, racing the first write.
    const url = server.url;
    const bySince = reconnect(url).then(async (stream) => {
      await subscribe(url, stream, last);
      return stream;
    });
    await restart();
    await write(4);
    const sinceStream = await bySince;
    await sleep(1_000);
    await write(5);
    // The other resumes as a browser EventSource does (Last-Event-ID on the GET, a POST
    // without `since`), and only after both writes.
    const byLastEventId = await reconnect(url, { 'last-event-id': last });
    await subscribe(url, byLastEventId);
    await write(6);
    await assertResumed(sinceStream, [4, 5, 6]);
    await assertResumed(byLastEventId, [4, 5, 6]);
  });

  it('nobody back until after the writes at once and ~1 s later: both resume them, none lost, no reset', async () => {
    await subscribeWriteAndStop([10, 11]);
    await restart();
    await write(12);
    await sleep(1_000);
    await write(13);
    const bySince = await reconnect(server.url);
    await subscribe(server.url, bySince, last);
    const byLastEventId = await reconnect(server.url, { 'last-event-id': last });
    await subscribe(server.url, byLastEventId);
    await write(14);
    await assertResumed(bySince, [12, 13, 14]);
    await assertResumed(byLastEventId, [12, 13, 14]);
  });

  it('concurrent writers right after the restart: a resuming client gets every write once, in id order', async () => {
    await subscribeWriteAndStop([20]);
    const url = server.url;
    const back = reconnect(url).then(async (stream) => {
      await subscribe(url, stream, last);
      return stream;
    });
    await restart();
    // Four writers at once: on PostgreSQL their numbers commit out of order, while the
    // restarted process starts reading the log for the returning client.
    const written: number[] = [];
    const writer = async (first: number) => {
      for (let n = first; n < first + 15; n++) {
        await write(n);
        written.push(n);
      }
    };
    await Promise.all([writer(100), writer(200), writer(300), writer(400), back]);
    const stream = await back;
    const events = await stream.waitFor(written.length, (e) => e.event === 'items', 15_000);
    // A later write it must see: a duplicate or a reset before it would show by then.
    await write(nextBarrier++);
    const judged = await stream.before(isBarrier, 15_000);
    assert.deepEqual(
      judged.filter((e) => e.event !== 'items').map((e) => e.event),
      [],
      'no reset',
    );
    assert.deepEqual(rows(events).sort(), [...written].sort(), 'every write once');
    assert.equal(judged.length, written.length, 'no duplicates');
    const ids = events.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'in id order',
    );
    assert.ok(ids[0]! > Number(last));
  });

  it('PostgreSQL: a number still committing when the new process starts reading is replayed, not skipped', {
    skip: testEngine() !== 'postgres',
  }, async () => {
    await subscribeWriteAndStop([30]);
    await restart();
    // Two writers as a restarted service sees them: `late` takes the lower number and commits
    // after `early`, so the log shows the higher one first, while the first client comes back.
    const early = new pg.Client({ connectionString: database!.url });
    const held = new pg.Client({ connectionString: database!.url });
    await Promise.all([early.connect(), held.connect()]);
    try {
      // As in a real write, each transaction has its id (from its row write) before its number.
      await holdLowerEntry('p_restart', early, held, [31, 32]);
      const stream = await reconnect(server.url);
      await subscribe(server.url, stream, last);
      await sleep(1_500);
      assert.deepEqual(rows(stream.received()), [], 'nothing passes a number still being committed');
      await held.query('COMMIT');
      await write(33);
      await assertResumed(stream, [31, 32, 33]);
    } finally {
      await early.query('ROLLBACK').catch(() => undefined);
      await held.query('ROLLBACK').catch(() => undefined);
      await Promise.all([early.end(), held.end()]);
    }
  });

  it('the server stops cleanly at the end', async () => {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });
});
