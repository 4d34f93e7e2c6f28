/**
 * Realtime order on PostgreSQL, where writers commit concurrently (docs/realtime.md "How it
 * works"): a transaction that took its event number and has not committed yet holds back every
 * later event (nothing overtakes it); when it commits, its event goes first; when it rolls
 * back, the later events follow once every transaction in progress at the gap has ended.
 * @engine postgres — SQLite commits one writer at a time, so its numbers have no gaps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { appendRowChanges } from '../../src/changes/event-log.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
const streams: SseStream[] = [];

before(async () => {
  server = await startTestServer({}, { realtime: { pollMs: 100 } });
  project = await createProject(server);
  await putTable(server, project, 'tasks', { columns: [{ name: 'title', type: 'text' }], rules: { list: '' } });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

/** Opens a transaction that appends an event and waits for `release` to commit (true) or roll back (false). */
async function heldWrite(
  title: string,
): Promise<{ taken: Promise<void>; release: (commit: boolean) => Promise<void> }> {
  const { db } = await server.built.services.schemas.schema(project.id);
  let signalTaken!: () => void;
  const taken = new Promise<void>((resolve) => (signalTaken = resolve));
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((resolve) => (decide = resolve));
  const done = db
    .transaction(async (tx) => {
      await appendRowChanges(
        tx,
        [{ table: 'tasks', action: 'create', record: { id: `held-${title}`, title } }],
        new Date().toISOString(),
      );
      signalTaken();
      if (!(await decision)) throw new Error('rolled back on purpose');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error) || error.message !== 'rolled back on purpose') throw error;
    });
  return {
    taken,
    release: async (commit) => {
      decide(commit);
      await done;
    },
  };
}

async function subscribed(): Promise<SseStream> {
  const stream = await openStream(server.url, project.id);
  streams.push(stream);
  const response = await server.request('POST', `/p/${project.id}/realtime`, {
    headers: project.anon,
    body: { client_id: stream.clientId, subscriptions: ['tasks'] },
  });
  assert.equal(response.status, 200, response.text);
  return stream;
}

const create = async (title: string) => {
  const response = await server.request('POST', `/p/${project.id}/api/tasks`, {
    headers: project.admin,
    body: { title },
  });
  assert.equal(response.status, 201, response.text);
};
const titles = (stream: SseStream) => stream.received().map((e) => e.json.record.title as string);

describe('events never overtake a write that is still committing', () => {
  it('a held transaction with a lower number holds back later events, then goes first when it commits', async () => {
    const stream = await subscribed();
    const held = await heldWrite('first');
    await held.taken;
    await create('second');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(titles(stream), [], 'nothing may pass the open transaction');
    await held.release(true);
    await stream.waitFor(2);
    assert.deepEqual(titles(stream), ['first', 'second']);
  });

  it('a held transaction that rolls back: the later events follow, without it', async () => {
    const stream = await subscribed();
    const held = await heldWrite('doomed');
    await held.taken;
    await create('after the doomed one');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(titles(stream), []);
    await held.release(false);
    // Settled once no write transaction older than the gap runs anywhere in the cluster (other
    // suites share it here), or after 10 s at most.
    await stream.waitFor(1, undefined, 15_000);
    await create('later still');
    await stream.waitFor(2);
    assert.deepEqual(titles(stream), ['after the doomed one', 'later still']);
  });
});
