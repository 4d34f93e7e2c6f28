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
import { eventually } from '../helpers/eventually.js';
import { heldBehind, LogCapture } from '../helpers/server-log.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
const streams: SseStream[] = [];
// The feed says at debug level when it holds an event behind a number still committing.
const log = new LogCapture();

before(async () => {
  server = await startTestServer({ LOG_LEVEL: 'debug' }, { realtime: { pollMs: 100 }, logStream: log });
  project = await createProject(server);
  await putTable(server, project, 'tasks', { columns: [{ name: 'title', type: 'text' }], rules: { list: '' } });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

/**
 * Opens a transaction that appends an event and waits for `release` to commit (true) or roll back
 * (false); `taken` resolves with the event's number once it has one.
 */
async function heldWrite(
  title: string,
): Promise<{ taken: Promise<number>; release: (commit: boolean) => Promise<void> }> {
  const { db } = await server.built.services.schemas.schema(project.id);
  let signalTaken!: (seq: number) => void;
  const taken = new Promise<number>((resolve) => (signalTaken = resolve));
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((resolve) => (decide = resolve));
  const done = db
    .transaction(async (tx) => {
      const [event] = await appendRowChanges(
        tx,
        [{ table: 'tasks', action: 'create', record: { id: `held-${title}`, title } }],
        new Date().toISOString(),
      );
      signalTaken(event!.seq);
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

/**
 * Waits until the feed has read the event after `held` and judged the gap at `held` still open
 * (its debug line), or until the stream got anything (which the caller's assertion then shows).
 */
async function judgedHeld(stream: SseStream, held: number): Promise<void> {
  await eventually(() => stream.received().length > 0 || heldBehind(log.output(), project.id, held, held + 1), {
    what: `the feed to hold event ${held + 1} behind ${held}`,
  });
}

describe('events never overtake a write that is still committing', () => {
  it('a held transaction with a lower number holds back later events, then goes first when it commits', async () => {
    const stream = await subscribed();
    const held = await heldWrite('first');
    const seq = await held.taken;
    await create('second');
    await judgedHeld(stream, seq);
    assert.deepEqual(titles(stream), [], 'nothing may pass the open transaction');
    await held.release(true);
    await stream.waitFor(2);
    assert.deepEqual(titles(stream), ['first', 'second']);
  });

  it('a held transaction that rolls back: the later events follow, without it', async () => {
    const stream = await subscribed();
    const held = await heldWrite('doomed');
    const seq = await held.taken;
    await create('after the doomed one');
    await judgedHeld(stream, seq);
    assert.deepEqual(titles(stream), [], 'nothing may pass the open transaction');
    await held.release(false);
    // Settled once no write transaction older than the gap runs anywhere in the cluster (other
    // suites share it here), or after 10 s at most.
    await stream.waitFor(1, undefined, 15_000);
    await create('later still');
    await stream.waitFor(2);
    assert.deepEqual(titles(stream), ['after the doomed one', 'later still']);
  });
});
