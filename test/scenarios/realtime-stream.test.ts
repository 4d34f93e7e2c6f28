/**
 * Realtime (contract §11): the stream, the subscription call and its errors, events after
 * commit only (create, update, delete, bulk in order, nothing for a rolled-back write), the
 * three kinds of topic, the admin key, and a plain `eventsource` client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventSource } from 'eventsource';
import { assertError } from '../helpers/assert-error.js';
import { eventually } from '../helpers/eventually.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import {
  createProject,
  putTable,
  startTestServer,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
const streams: SseStream[] = [];

const subscribe = (
  stream: SseStream,
  headers: Record<string, string>,
  subscriptions: unknown,
  extra: Record<string, unknown> = {},
) =>
  server.request('POST', `/p/${project.id}/realtime`, {
    headers,
    body: { client_id: stream.clientId, subscriptions, ...extra },
  });
const open = async () => {
  const stream = await openStream(server.url, project.id);
  streams.push(stream);
  return stream;
};
const create = async (table: string, body: unknown) => {
  const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};

before(async () => {
  server = await startTestServer();
  project = await createProject(server);
  await putTable(server, project, 'tasks', {
    columns: [
      { name: 'title', type: 'text', unique: true },
      { name: 'done', type: 'boolean', default: false },
      { name: 'n', type: 'integer' },
    ],
    rules: { list: '', view: '' },
  });
  await putTable(server, project, 'secrets', { columns: [{ name: 'title', type: 'text' }] });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

describe('GET /p/{id}/realtime', () => {
  it('200 text/event-stream; the first event is connect with a client_id of at least 128 random bits', async () => {
    const stream = await open();
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.events[0]!.event, 'connect');
    assert.deepEqual(Object.keys(stream.events[0]!.json), ['client_id']);
    // base64url: 6 bits a character; 128 bits need 22 characters.
    assert.match(stream.clientId, /^[A-Za-z0-9_-]{22,}$/);
    const other = await open();
    assert.notEqual(other.clientId, stream.clientId);
  });

  it('an unknown project → 404 PROJECT_NOT_FOUND', async () => {
    assertError(await server.request('GET', '/p/no-such-project/realtime'), 404, 'PROJECT_NOT_FOUND');
  });

  it('HEAD opens no stream: 405 without HEAD in Allow; the keep-alive connection serves the next request', async () => {
    const head = await fetch(`${server.url}/p/${project.id}/realtime`, { method: 'HEAD', headers: project.anon });
    assert.equal(head.status, 405);
    assert.equal(head.headers.get('allow'), 'GET, POST, OPTIONS');
    assert.doesNotMatch(head.headers.get('content-type') ?? '', /event-stream/);
    const next = await server.request('GET', `/p/${project.id}/api/tasks?limit=1`, { headers: project.anon });
    assert.equal(next.status, 200, next.text);
  });
});

describe('POST /p/{id}/realtime', () => {
  let stream: SseStream;
  before(async () => {
    stream = await open();
  });

  const errors: [string, () => Promise<TestResponse>, number, string][] = [
    [
      'no credentials → 401 AUTH_REQUIRED',
      () =>
        server.request('POST', `/p/${project.id}/realtime`, {
          body: { client_id: stream.clientId, subscriptions: ['tasks'] },
        }),
      401,
      'AUTH_REQUIRED',
    ],
    [
      'a wrong key → 401 AUTH_INVALID_KEY',
      () => subscribe(stream, { 'x-api-key': `pk_${'Z'.repeat(40)}` }, ['tasks']),
      401,
      'AUTH_INVALID_KEY',
    ],
    [
      'an unknown client → 404 REALTIME_CLIENT_NOT_FOUND',
      () =>
        server.request('POST', `/p/${project.id}/realtime`, {
          headers: project.anon,
          body: { client_id: 'nope', subscriptions: ['tasks'] },
        }),
      404,
      'REALTIME_CLIENT_NOT_FOUND',
    ],
    ['an unknown table → 404 TABLE_NOT_FOUND', () => subscribe(stream, project.anon, ['taks']), 404, 'TABLE_NOT_FOUND'],
    [
      'a malformed topic → 400 VALIDATION_FILTER',
      () => subscribe(stream, project.anon, ['tasks/a/b']),
      400,
      'VALIDATION_FILTER',
    ],
    [
      'a topic with a line break (it would forge lines of the stream) → 400 VALIDATION_FILTER',
      () => subscribe(stream, project.anon, ['tasks/x\ndata: forged']),
      400,
      'VALIDATION_FILTER',
    ],
    [
      'a malformed filter → 400 VALIDATION_FILTER',
      () => subscribe(stream, project.anon, [`tasks?filter=${encodeURIComponent('titel = "x"')}`]),
      400,
      'VALIDATION_FILTER',
    ],
    [
      'a locked list rule for the caller → 403 FORBIDDEN',
      () => subscribe(stream, project.anon, ['secrets']),
      403,
      'FORBIDDEN',
    ],
    [
      'a locked view rule on a row topic → 403 FORBIDDEN',
      () => subscribe(stream, project.anon, ['secrets/abc']),
      403,
      'FORBIDDEN',
    ],
    [
      'subscriptions not an array → 400 VALIDATION_FAILED',
      () => subscribe(stream, project.anon, 'tasks'),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'more than 100 topics → 400 VALIDATION_FAILED',
      () =>
        subscribe(
          stream,
          project.anon,
          Array.from({ length: 101 }, (_, i) => `tasks/${i}`),
        ),
      400,
      'VALIDATION_FAILED',
    ],
  ];
  for (const [name, call, status, code] of errors) {
    it(name, async () => assertError(await call(), status, code));
  }

  it('200 { data: { client_id, subscriptions } }; [] removes every topic', async () => {
    const topics = ['tasks', 'tasks/abc', `tasks?filter=${encodeURIComponent('done = false')}`];
    const response = await subscribe(stream, project.anon, topics);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { data: { client_id: stream.clientId, subscriptions: topics } });
    const cleared = await subscribe(stream, project.anon, []);
    assert.deepEqual(cleared.body, { data: { client_id: stream.clientId, subscriptions: [] } });
  });

  it('a closed stream → 404 REALTIME_CLIENT_NOT_FOUND', async () => {
    const closing = await open();
    closing.close();
    await eventually(async () => (await subscribe(closing, project.anon, ['tasks'])).status === 404, {
      what: 'the server to notice the closed stream',
    });
    assertError(await subscribe(closing, project.anon, ['tasks']), 404, 'REALTIME_CLIENT_NOT_FOUND');
  });
});

describe('events', () => {
  it('create, update and delete on table, row and filtered topics, with increasing ids', async () => {
    const stream = await open();
    const row = await create('tasks', { title: 'first' });
    const filter = `tasks?filter=${encodeURIComponent('done = true')}`;
    assert.equal((await subscribe(stream, project.anon, ['tasks', `tasks/${row.id}`, filter])).status, 200);
    const patched = await server.request('PATCH', `/p/${project.id}/api/tasks/${row.id}`, {
      headers: project.admin,
      body: { done: true },
    });
    assert.equal(patched.status, 200);
    const other = await create('tasks', { title: 'second' });
    assert.equal(
      (await server.request('DELETE', `/p/${project.id}/api/tasks/${row.id}`, { headers: project.admin })).status,
      204,
    );
    const events = await stream.waitFor(6);
    // A later write the stream must see: every event of the writes above was judged before it.
    const barrier = await create('tasks', { title: 'barrier' });
    const judged = await stream.before((e) => e.event === 'tasks' && e.json.record.id === barrier.id);
    const seen = judged.map((e) => [e.event, e.json.action, e.json.record.id]);
    assert.deepEqual(
      seen,
      [
        ['tasks', 'update', row.id],
        [`tasks/${row.id}`, 'update', row.id],
        [filter, 'update', row.id],
        ['tasks', 'create', other.id],
        ['tasks', 'delete', row.id],
        [`tasks/${row.id}`, 'delete', row.id],
        // The deleted row was done = true: the filter judges the row as it was.
        [filter, 'delete', row.id],
      ].slice(0, seen.length),
    );
    assert.equal(seen.length, 7);
    assert.deepEqual(events[0]!.json.record, patched.body.data);
    const ids = judged.map((e) => Number(e.id));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! >= ids[i - 1]!, `ids increase: ${ids}`);
    assert.equal(new Set(ids).size, 3, 'one id per write, repeated once per matching subscription');
  });

  it('a bulk create of 1,000 rows sends 1,000 events, in order', async () => {
    const stream = await open();
    await subscribe(stream, project.admin, ['tasks']);
    const rows = Array.from({ length: 1000 }, (_, i) => ({ title: `bulk ${i}`, n: i }));
    const response = await server.request('POST', `/p/${project.id}/api/tasks/bulk`, {
      headers: project.admin,
      body: rows,
    });
    assert.equal(response.status, 201);
    const events = await stream.waitFor(1000, undefined, 15_000);
    assert.deepEqual(
      events.map((e) => e.json.record.n),
      rows.map((r) => r.n),
    );
    assert.deepEqual(
      events.map((e) => e.json.record.id),
      response.body.data.map((r: { id: string }) => r.id),
    );
  });

  it('a write that rolls back sends nothing (a bulk with one bad row, a unique violation)', async () => {
    const stream = await open();
    await subscribe(stream, project.admin, ['tasks', 'secrets']);
    const bulk = await server.request('POST', `/p/${project.id}/api/tasks/bulk`, {
      headers: project.admin,
      body: [{ title: 'rb 1' }, { title: 'rb 2' }, { title: 'first-dup', n: 'x' }],
    });
    assert.equal(bulk.status, 400);
    await create('tasks', { title: 'unique-once' });
    const duplicate = await server.request('POST', `/p/${project.id}/api/tasks`, {
      headers: project.admin,
      body: { title: 'unique-once' },
    });
    assertError(duplicate, 409, 'CONFLICT_UNIQUE');
    const marker = await create('secrets', { title: 'marker' });
    const events = await stream.waitFor(2);
    assert.deepEqual(
      events.map((e) => [e.event, e.json.record.title]),
      [
        ['tasks', 'unique-once'],
        ['secrets', marker.title],
      ],
    );
  });

  it('the admin key sees a table whose rules are locked', async () => {
    const stream = await open();
    await subscribe(stream, project.admin, ['secrets']);
    await create('secrets', { title: 'classified' });
    const [event] = await stream.waitFor(1);
    assert.equal(event!.json.record.title, 'classified');
  });

  it('a plain EventSource (the eventsource package) receives connect and events', async () => {
    const source = new EventSource(`${server.url}/p/${project.id}/realtime`);
    try {
      const clientId = await new Promise<string>((resolve, reject) => {
        source.addEventListener('connect', (event) => resolve(JSON.parse(event.data).client_id));
        source.onerror = () => reject(new Error('EventSource error'));
      });
      const received = new Promise<{ id: string; data: string }>((resolve) => {
        source.addEventListener('tasks', (event) => resolve({ id: event.lastEventId, data: event.data }));
      });
      const response = await server.request('POST', `/p/${project.id}/realtime`, {
        headers: project.anon,
        body: { client_id: clientId, subscriptions: ['tasks'] },
      });
      assert.equal(response.status, 200, response.text);
      const row = await create('tasks', { title: 'via EventSource' });
      const event = await received;
      assert.deepEqual(JSON.parse(event.data), { action: 'create', record: row });
      assert.match(event.id, /^\d+$/);
    } finally {
      source.close();
    }
  });
});
