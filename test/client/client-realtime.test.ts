/**
 * @rowbase/client realtime against a started server (contract §10, §11): `subscribe(topic,
 * handler)` receives row changes; a dropped stream reconnects by itself and resumes with
 * `since` (nothing lost, nothing twice); the session in use decides what is seen; the last
 * unsubscribe closes the stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RealtimeClient, RealtimeEvent } from '../../packages/client/src/index.js';
import { PASSWORD, signUp } from '../helpers/auth-fixtures.js';
import { eventually } from '../helpers/eventually.js';
import { createClientProject, recordedClient, type TasksRow } from '../helpers/client-project.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
before(async () => {
  server = await startTestServer();
  project = await createClientProject(server);
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'title', type: 'text' },
      { name: 'owner', type: 'text' },
    ],
    rules: { list: 'owner = @request.auth.id', view: 'owner = @request.auth.id' },
  });
});
after(() => server.close());

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  await eventually(check, { timeoutMs, what });
}

/**
 * A fetch that counts the subscription calls (POST /realtime) the server has answered: a
 * subscription covers writes committed after its answer, so a test writes only then (a write
 * racing the subscription may commit before it and is rightly not delivered).
 */
function countingSubscriptions(next: typeof fetch = fetch): { fetch: typeof fetch; answered: () => number } {
  let answered = 0;
  return {
    fetch: async (input, init) => {
      const response = await next(input, init);
      if (init?.method === 'POST' && String(input).endsWith('/realtime')) answered++;
      return response;
    },
    answered: () => answered,
  };
}

const adminCreate = async (table: string, body: Record<string, unknown>) => {
  const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};

describe('client.realtime.subscribe', () => {
  it('receives row changes of its topic, resumes after a dropped stream with nothing lost or repeated', async () => {
    // A fetch whose realtime streams the test can cut, as a network fault would.
    const cuts: AbortController[] = [];
    const subscriptions = countingSubscriptions((input, init) => {
      if (!String(input).endsWith('/realtime') || init?.method === 'POST') return fetch(input, init);
      const cut = new AbortController();
      cuts.push(cut);
      init?.signal?.addEventListener('abort', () => cut.abort());
      return fetch(input, { ...init, signal: cut.signal });
    });
    const { client, sent } = recordedClient(server, project, { fetch: subscriptions.fetch });
    const seen: RealtimeEvent<TasksRow>[] = [];
    const stop = client.realtime.subscribe('tasks', (event) => seen.push(event));
    // Stopped however the test ends: an open stream would keep server.close() waiting.
    try {
      await until(() => subscriptions.answered() === 1, 'the subscription call');
      await adminCreate('tasks', { title: 't0' });
      await until(() => seen.length === 1, 'the first event');
      cuts[0]!.abort();
      await adminCreate('tasks', { title: 't1' });
      await adminCreate('tasks', { title: 't2' });
      await until(() => cuts.length === 2 && seen.length >= 3, 'the reconnect and the replay');
      await adminCreate('tasks', { title: 't3' });
      await until(() => seen.length >= 4, 'a live event after the replay');
      // A later write it must see: a doubled or extra event before it would show by then.
      await adminCreate('tasks', { title: 'barrier' });
      await until(() => seen.some((e) => e.action !== 'reset' && e.record.title === 'barrier'), 'the barrier');
      assert.deepEqual(
        seen.map((e) => (e.action === 'reset' ? 'reset' : `${e.action}:${e.record.title}`)),
        ['create:t0', 'create:t1', 'create:t2', 'create:t3', 'create:barrier'],
      );
      const posts = sent.filter((r) => r.method === 'POST' && r.path.endsWith('/realtime'));
      assert.equal(posts.length, 2, 'one subscription call per stream');
    } finally {
      stop();
    }
  });

  it('sees what the session may see: a signed-in user gets their own rows, not others', async () => {
    const subscriptions = countingSubscriptions();
    const { client } = recordedClient(server, project, { fetch: subscriptions.fetch });
    const other = await signUp(server, project, 'other@example.com');
    await client.auth.signUp({ email: 'me@example.com', password: PASSWORD });
    const me = client.auth.user!;
    const seen: RealtimeEvent[] = [];
    // notes is declared by this file only, not in the fixture's Database type: subscribe untyped.
    const stop = (client.realtime as unknown as RealtimeClient).subscribe('notes', (event) => seen.push(event));
    try {
      await until(() => subscriptions.answered() === 1, 'the subscription call');
      await adminCreate('notes', { title: 'theirs', owner: other.user.id });
      await adminCreate('notes', { title: 'mine', owner: me.id });
      await until(() => seen.length === 1, 'my row');
      // A later row of mine it must see: their row, had it passed, would be before it.
      await adminCreate('notes', { title: 'mine, later', owner: me.id });
      await until(() => seen.length === 2, 'my later row');
      assert.deepEqual(
        seen.map((e) => e.action !== 'reset' && (e.record as { title: string }).title),
        ['mine', 'mine, later'],
      );
    } finally {
      stop();
    }
  });

  it('the last unsubscribe closes the stream', async () => {
    const { client } = recordedClient(server, project);
    await until(() => server.built.services.realtime.size === 0, 'the earlier streams to close');
    const before = 0;
    const stop = client.realtime.subscribe('tasks', () => undefined);
    try {
      await until(() => server.built.services.realtime.size === before + 1, 'the stream to open');
    } finally {
      stop();
    }
    await until(() => server.built.services.realtime.size === before, 'the stream to close');
  });
});
