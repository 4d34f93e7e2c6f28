/**
 * Realtime resume (contract §11): a POST with `since` replays the kept events after it, then
 * joins live events with no gap and no duplicate; `reset` when the log no longer reaches back
 * (past the kept window on a fake clock), or for a malformed or unknown `since`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import {
  createProject,
  putTable,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const clock = new TestClock();
let server: TestServer;
let project: TestProject;
const streams: SseStream[] = [];

before(async () => {
  server = await startTestServer({}, { clock, realtime: { pollMs: 100 } });
  project = await createProject(server);
  await putTable(server, project, 'tasks', {
    columns: [{ name: 'n', type: 'integer' }],
    rules: { list: '', view: '' },
  });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

async function subscribed(
  topics: string[],
  since?: string,
  headers: Record<string, string> = project.anon,
): Promise<SseStream> {
  const stream = await openStream(server.url, project.id, headers);
  streams.push(stream);
  const response = await server.request('POST', `/p/${project.id}/realtime`, {
    headers: project.anon,
    body: { client_id: stream.clientId, subscriptions: topics, ...(since !== undefined && { since }) },
  });
  assert.equal(response.status, 200, response.text);
  return stream;
}

async function write(from: number, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({ n: from + i }));
  for (const row of rows) {
    const response = await server.request('POST', `/p/${project.id}/api/tasks`, { headers: project.admin, body: row });
    assert.equal(response.status, 201, response.text);
  }
}

const numbers = (stream: SseStream) =>
  stream.received((e) => e.event === 'tasks').map((e) => e.json.record.n as number);

describe('resume with since', () => {
  it("a replay that passes an update of the user's own row goes on, then joins live events", async () => {
    const own = 'id = @request.auth.id';
    const auth = await createAuthProject(server, { rules: { list: own, view: own, update: own } });
    await putTable(server, auth, 'notes', { columns: [{ name: 'n', type: 'integer' }], rules: { list: '', view: '' } });
    const ada = await signUp(server, auth, 'ada@example.com', { name: 'Ada' });
    const note = async (n: number) =>
      assert.equal(
        (await server.request('POST', `/p/${auth.id}/api/notes`, { headers: auth.admin, body: { n } })).status,
        201,
      );
    const open = async (since?: string) => {
      const stream = await openStream(server.url, auth.id, bearer(ada.token));
      streams.push(stream);
      const body = {
        client_id: stream.clientId,
        subscriptions: ['users', 'notes'],
        ...(since !== undefined && { since }),
      };
      const response = await server.request('POST', `/p/${auth.id}/realtime`, { headers: bearer(ada.token), body });
      assert.equal(response.status, 200, response.text);
      return stream;
    };
    const first = await open();
    await note(1);
    const [mark] = await first.waitFor(1);
    first.close();
    // Missed while away: ada's own row changes (her identity as the rules see it), then two notes.
    const renamed = await server.request('PATCH', `/p/${auth.id}/api/users/${ada.user.id}`, {
      headers: auth.admin,
      body: { name: 'Ada L.' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    await note(2);
    await note(3);
    const second = await open(mark!.id);
    await second.waitFor(3);
    await note(4);
    const events = await second.waitFor(4);
    assert.deepEqual(
      events.map((e) => (e.event === 'users' ? `users:${e.json.record.name}` : `notes:${e.json.record.n}`)),
      ['users:Ada L.', 'notes:2', 'notes:3', 'notes:4'],
    );
  });

  it('after a dropped connection with writes between: every missed event once, then live ones, in order', async () => {
    const first = await subscribed(['tasks']);
    await write(0, 3);
    const seen = await first.waitFor(3);
    first.close();
    await write(3, 4);
    const second = await subscribed(['tasks'], seen[2]!.id);
    // Writes racing the replay must neither be lost nor doubled.
    await Promise.all([write(7, 5), second.waitFor(4)]);
    await write(12, 1);
    // A later write it must see: anything doubled or lost before it would show by then.
    await write(13, 1);
    const judged = await second.before((e) => e.json?.record?.n === 13);
    assert.deepEqual(
      judged.map((e) => e.json.record.n),
      [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
    const ids = judged.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    assert.equal(new Set(ids).size, ids.length);
  });

  it('the replay obeys the new subscriptions: a row topic replays only that row', async () => {
    const first = await subscribed(['tasks']);
    await write(100, 1);
    const [mark] = await first.waitFor(1);
    first.close();
    await write(101, 3);
    const target = (
      await server.request('GET', `/p/${project.id}/api/tasks?filter=${encodeURIComponent('n = 102')}`, {
        headers: project.admin,
      })
    ).body.data[0];
    const second = await subscribed([`tasks/${target.id}`], mark!.id);
    const [event] = await second.waitFor(1);
    // A later update of the same row it must see: no other replayed row came before it.
    assert.equal(
      (
        await server.request('PATCH', `/p/${project.id}/api/tasks/${target.id}`, {
          headers: project.admin,
          body: { n: 1102 },
        })
      ).status,
      200,
    );
    const judged = await second.before((e) => e.json?.record?.n === 1102);
    assert.equal(judged.length, 1);
    assert.equal(event!.json.record.n, 102);
  });

  it('Last-Event-ID of a reconnecting EventSource is the default since of the next POST', async () => {
    const first = await subscribed(['tasks']);
    await write(200, 1);
    const [mark] = await first.waitFor(1);
    first.close();
    await write(201, 2);
    const second = await subscribed(['tasks'], undefined, { 'last-event-id': mark!.id! });
    await second.waitFor(2);
    assert.deepEqual(numbers(second), [201, 202]);
  });

  const resets: [string, string][] = [
    ['a malformed since', 'not-a-number'],
    ['an unknown since (past the last event)', '99999999'],
  ];
  for (const [name, since] of resets) {
    it(`${name} → 200, then reset, then live events`, async () => {
      const stream = await subscribed(['tasks'], since);
      await stream.waitFor(1, (e) => e.event === 'reset');
      await write(300, 1);
      await stream.waitFor(1, (e) => e.event === 'tasks');
      assert.deepEqual(
        stream.received().map((e) => e.event),
        ['reset', 'tasks'],
      );
      assert.equal(stream.received()[0]!.data, '{}');
    });
  }

  it('events after since older than the kept window (10 minutes) → reset', async () => {
    const first = await subscribed(['tasks']);
    await write(400, 2);
    // Missed: the event after `old`, written before the clock moves past the window.
    const [old] = await first.waitFor(2);
    first.close();
    clock.advance(11 * 60);
    await write(401, 1);
    const second = await subscribed(['tasks'], old!.id);
    await second.waitFor(1, (e) => e.event === 'reset');
    await write(402, 1);
    await second.waitFor(1, (e) => e.event === 'tasks');
    assert.deepEqual(
      second.received().map((e) => (e.event === 'reset' ? 'reset' : e.json.record.n)),
      ['reset', 402],
    );
  });

  it('within the window (9 minutes) the same resume replays', async () => {
    const first = await subscribed(['tasks']);
    await write(500, 1);
    const [mark] = await first.waitFor(1);
    first.close();
    clock.advance(9 * 60);
    await write(501, 1);
    const second = await subscribed(['tasks'], mark!.id);
    await second.waitFor(1);
    assert.deepEqual(numbers(second), [501]);
  });
});

describe('writes while nobody listens', () => {
  it('are logged all the same: a since from before the quiet time replays them, then live events', async () => {
    const quiet = await createProject(server);
    await putTable(server, quiet, 'tasks', { columns: [{ name: 'n', type: 'integer' }], rules: { list: '' } });
    const { db } = await server.built.services.schemas.schema(quiet.id);
    // Entries written from `since` on (the background trim may remove older ones meanwhile).
    const loggedSince = (since: string) =>
      db.count({
        kind: 'count',
        table: '_rb_events',
        where: {
          kind: 'compare',
          op: '>=',
          left: { kind: 'column', name: 'created_at' },
          right: { kind: 'value', value: since, type: 'text' },
        },
      });
    const first = await openStream(server.url, quiet.id);
    assert.equal(
      (
        await server.request('POST', `/p/${quiet.id}/realtime`, {
          headers: quiet.anon,
          body: { client_id: first.clientId, subscriptions: ['tasks'] },
        })
      ).status,
      200,
    );
    await server.request('POST', `/p/${quiet.id}/api/tasks`, { headers: quiet.admin, body: { n: 1 } });
    const [seen] = await first.waitFor(1);
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    clock.advance(11 * 60);
    const after = new Date(clock.now()).toISOString();
    const response = await server.request('POST', `/p/${quiet.id}/api/tasks/bulk`, {
      headers: quiet.admin,
      body: [{ n: 2 }, { n: 3 }],
    });
    assert.equal(response.status, 201);
    // No stream has been open for longer than the kept window: the writes are in the log anyway.
    assert.equal(await loggedSince(after), 2);
    const stream = await openStream(server.url, quiet.id);
    streams.push(stream);
    const resumed = await server.request('POST', `/p/${quiet.id}/realtime`, {
      headers: quiet.anon,
      body: { client_id: stream.clientId, subscriptions: ['tasks'], since: seen!.id },
    });
    assert.equal(resumed.status, 200);
    await stream.waitFor(2, (e) => e.event === 'tasks');
    await server.request('POST', `/p/${quiet.id}/api/tasks`, { headers: quiet.admin, body: { n: 4 } });
    await stream.waitFor(1, (e) => e.json?.record?.n === 4);
    assert.deepEqual(
      stream.received().map((e) => (e.event === 'reset' ? 'reset' : e.json.record.n)),
      [2, 3, 4],
    );
  });
});
