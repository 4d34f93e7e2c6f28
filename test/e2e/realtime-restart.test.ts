/**
 * Realtime across a restart of the server (issue 21, defect 2): a stream's `since` from before
 * a SIGTERM resumes on the restarted process (same data folder, same port) with every event
 * after it, on SQLite as on PostgreSQL, and writes made right after the restart (at once,
 * and again about a second later) each reach the subscribers exactly once, in order, whether
 * the client is back before them or only after them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { call, freePort, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
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
    for (const server of children) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await Promise.all(children.map((server) => server.exited));
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a stream as a reconnecting client does: again and again until the server answers. */
  async function reconnect(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    for (const deadline = Date.now() + 30_000; ; await sleep(25)) {
      try {
        const stream = await openStream(url, PROJECT, headers);
        streams.push(stream);
        return stream;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
    }
  }

  async function subscribe(url: string, admin: Record<string, string>, stream: SseStream, since?: string): Promise<void> {
    const bound = await call(url, 'POST', `/p/${PROJECT}/realtime`, admin, { client_id: stream.clientId, subscriptions: ['items'], ...(since !== undefined && { since }) });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
  }

  const rows = (events: readonly SseEvent[]) => events.map((e) => (e.event === 'items' ? e.json.record.n : e.event));

  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  let admin: Record<string, string>;
  /** The id of the last event the subscribers saw before the restart. */
  let last: string;
  const write = async (n: number) => assert.equal((await call(server.url, 'POST', `/p/${PROJECT}/api/items`, admin, { n })).status, 201);

  /** Two subscribers see `numbers` written, then the server stops (SIGTERM) and their streams end. */
  async function subscribeWriteAndStop(numbers: readonly number[]): Promise<void> {
    const streams = [await reconnect(server.url), await reconnect(server.url)];
    for (const stream of streams) await subscribe(server.url, admin, stream);
    for (const n of numbers) await write(n);
    const seen = await Promise.all(streams.map((stream) => stream.waitFor(numbers.length, undefined, 10_000)));
    assert.deepEqual(seen.map(rows), [numbers, numbers]);
    last = seen[0]!.at(-1)!.id!;
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
    await Promise.all(streams.map((stream) => stream.waitForEnd(10_000)));
  }

  async function restart(): Promise<void> {
    server = await startServerProcess(dataDir, env);
    children.push(server);
  }

  /** Every event after `last`, once, in order, no reset, with ids above `last`. */
  async function assertResumed(stream: SseStream, numbers: readonly number[]): Promise<void> {
    const events = await stream.waitFor(numbers.length, (e) => e.event === 'items', 10_000);
    await sleep(300);
    assert.deepEqual(rows(stream.received()), numbers, 'every event after since once, in order, and no reset');
    const ids = events.map((e) => Number(e.id));
    assert.ok(ids[0]! > Number(last), `ids keep increasing across the restart (${last} then ${ids.join(', ')})`);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  }

  it('clients back as soon as the new process listens: since resumes, writes at once and ~1 s later arrive once, in order', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-rt-restart-'));
    dirs.push(dataDir);
    database = testEngine() === 'postgres' ? await createTestDatabase() : undefined;
    env = { PORT: String(await freePort()), ...(database && { DATABASE_URL: database.url }) };
    server = await startServerProcess(dataDir, env);
    children.push(server);
    const created = await call(server.url, 'POST', '/v1/projects', { 'x-platform-key': PROCESS_PLATFORM_KEY }, { name: PROJECT, id: PROJECT });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    admin = { 'x-admin-key': created.body.data.admin_key as string };
    const table = await call(server.url, 'PUT', `/p/${PROJECT}/v1/tables/items`, admin, { columns: [{ name: 'n', type: 'integer' }] });
    assert.equal(table.status, 201, JSON.stringify(table.body));
    await subscribeWriteAndStop([1, 2, 3]);

    // One client resumes with `since` in its POST and keeps reconnecting from the moment the
    // server is gone, so it is back as soon as the new process listens, racing the first write.
    const url = server.url;
    const bySince = reconnect(url).then(async (stream) => {
      await subscribe(url, admin, stream, last);
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
    await subscribe(url, admin, byLastEventId);
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
    await subscribe(server.url, admin, bySince, last);
    const byLastEventId = await reconnect(server.url, { 'last-event-id': last });
    await subscribe(server.url, admin, byLastEventId);
    await write(14);
    await assertResumed(bySince, [12, 13, 14]);
    await assertResumed(byLastEventId, [12, 13, 14]);
    server.child.kill('SIGTERM');
    await server.exited;
  });
});
