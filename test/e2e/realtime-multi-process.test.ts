/**
 * Realtime across processes (contract §11, issue 12): two `rowbase serve` processes on one
 * PostgreSQL database, writes through both at once, subscribers on both. Every subscriber
 * receives every event it may see, exactly once, and all of them in the same order (the
 * commit order: numbers are taken in the writing transaction, docs/realtime.md). A SIGTERM
 * ends the streams of the stopping process, so clients can reconnect elsewhere and resume.
 * @engine postgres — the PostgreSQL pass only (SQLite is one process by design).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startProcessPair, type ProcessPair } from '../helpers/process-pair.js';
import { call, type ServerProcess } from '../helpers/server-process.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';

const PASSWORD = 'correct horse battery';
const WRITES_PER_PROCESS = 60;

describe('realtime with two server processes on one PostgreSQL database', () => {
  let pair: ProcessPair;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: Record<string, string>;
  const streams: SseStream[] = [];
  const project = 'live';
  const users: { id: string; token: string }[] = [];

  before(async () => {
    pair = await startProcessPair(project);
    ({ a, b, admin } = pair);
    assert.equal(
      (await call(a.url, 'PUT', `/p/${project}/v1/tables/users`, admin, { columns: [], auth_table: true })).status,
      201,
    );
    const owner = 'owner = @request.auth.id';
    const items = await call(b.url, 'PUT', `/p/${project}/v1/tables/items`, admin, {
      columns: [
        { name: 'n', type: 'integer' },
        { name: 'owner', type: 'text' },
      ],
      rules: { list: owner, view: owner, create: owner },
    });
    assert.equal(items.status, 201, JSON.stringify(items.body));
    for (const [server, email] of [
      [a, 'ada@example.com'],
      [b, 'bob@example.com'],
    ] as const) {
      const signup = await call(server.url, 'POST', `/p/${project}/auth/signup`, {}, { email, password: PASSWORD });
      assert.equal(signup.status, 201, JSON.stringify(signup.body));
      users.push({ id: signup.body.user.id, token: signup.body.token });
    }
  });

  after(async () => {
    for (const stream of streams) stream.close();
    await pair?.stop();
  });

  async function subscribe(server: ServerProcess, headers: Record<string, string>, since?: string): Promise<SseStream> {
    const stream = await openStream(server.url, project);
    streams.push(stream);
    const response = await call(server.url, 'POST', `/p/${project}/realtime`, headers, {
      client_id: stream.clientId,
      subscriptions: ['items'],
      ...(since && { since }),
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return stream;
  }

  it('writes through both processes reach subscribers on both, once each, in one order, under the rules', async () => {
    const ada = { authorization: `Bearer ${users[0]!.token}` };
    const subscribers = {
      adminA: await subscribe(a, admin),
      adminB: await subscribe(b, admin),
      adaA: await subscribe(a, ada),
      adaB: await subscribe(b, ada),
    };
    // Both processes write at once, for both owners, so their transactions interleave.
    const writes = (server: ServerProcess, offset: number) =>
      Promise.all(
        Array.from({ length: WRITES_PER_PROCESS }, (_, i) => {
          const n = offset + i;
          const user = users[n % 2]!;
          return call(
            server.url,
            'POST',
            `/p/${project}/api/items`,
            { authorization: `Bearer ${user.token}` },
            { n, owner: user.id },
          ).then((r) => assert.equal(r.status, 201, JSON.stringify(r.body)));
        }),
      );
    await Promise.all([writes(a, 0), writes(b, 1000)]);
    const total = 2 * WRITES_PER_PROCESS;
    const adminA = await subscribers.adminA.waitFor(total, undefined, 15_000);
    const adminB = await subscribers.adminB.waitFor(total, undefined, 15_000);
    const adaA = await subscribers.adaA.waitFor(total / 2, undefined, 15_000);
    const adaB = await subscribers.adaB.waitFor(total / 2, undefined, 15_000);
    // A later write both admin streams must see: a duplicate before it would show by then.
    const barrier = await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: 9999, owner: users[0]!.id });
    assert.equal(barrier.status, 201, JSON.stringify(barrier.body));
    const isBarrier = (e: { json?: { record?: { n?: number } } }) => e.json?.record?.n === 9999;
    const order = (events: typeof adminA) => events.map((e) => `${e.id}:${e.json.record.n}`);
    assert.equal((await subscribers.adminA.before(isBarrier, 15_000)).length, total, 'no duplicates on A');
    assert.equal((await subscribers.adminB.before(isBarrier, 15_000)).length, total, 'no duplicates on B');
    assert.deepEqual(order(adminB), order(adminA), 'the same order on both processes');
    assert.deepEqual(new Set(adminA.map((e) => e.json.record.n)).size, total, 'every write once');
    const ids = adminA.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      Array.from({ length: total }, (_, i) => ids[0]! + i),
      'numbers are gap-free and increasing',
    );
    assert.equal((await subscribers.adaA.before(isBarrier, 15_000)).length, total / 2);
    assert.deepEqual(order(adaA), order(adaB));
    assert.ok(
      adaA.every((e) => e.json.record.owner === users[0]!.id),
      "Ada never sees Bob's rows",
    );
    assert.deepEqual(
      order(adaA),
      order(adminA.filter((e) => e.json.record.owner === users[0]!.id)),
      "Ada's events in the admin's order",
    );
  });

  it('a subscription starts after what committed before it, though its process has not read those yet', async () => {
    // B's feed learns of A's writes from the shared log, a little later than A answers them:
    // a POST landing in that lag must not hand the older events to the new topics.
    const held = await openStream(b.url, project); // keeps B's feed of the project open between rounds
    streams.push(held);
    for (let round = 0; round < 5; round++) {
      const stream = await openStream(b.url, project);
      streams.push(stream);
      const rows = Array.from({ length: 200 }, (_, i) => ({ n: 10_000 + round * 1000 + i, owner: users[0]!.id }));
      assert.equal((await call(a.url, 'POST', `/p/${project}/api/items/bulk`, admin, rows)).status, 201);
      const bound = await call(b.url, 'POST', `/p/${project}/realtime`, admin, {
        client_id: stream.clientId,
        subscriptions: ['items'],
      });
      assert.equal(bound.status, 200, JSON.stringify(bound.body));
      const marker = 99_000 + round;
      assert.equal(
        (await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: marker, owner: users[0]!.id })).status,
        201,
      );
      // The marker is the barrier: an older event sent to the new topics would come before it.
      const judged = await stream.before((e) => e.json?.record?.n === marker, 10_000);
      assert.deepEqual(
        judged.filter((e) => e.event === 'items').map((e) => e.json.record.n),
        [],
        `round ${round}`,
      );
    }
  });

  it('a reset starts like a subscription without since: events committed before the call are not sent', async () => {
    // As above, B's feed lags behind A's writes; a `since` B cannot replay (malformed here)
    // answers reset, and the client reloads: what B's feed reads after that is in the reload.
    const held = await openStream(b.url, project);
    streams.push(held);
    for (let round = 0; round < 5; round++) {
      const stream = await openStream(b.url, project);
      streams.push(stream);
      const rows = Array.from({ length: 200 }, (_, i) => ({ n: 20_000 + round * 1000 + i, owner: users[0]!.id }));
      assert.equal((await call(a.url, 'POST', `/p/${project}/api/items/bulk`, admin, rows)).status, 201);
      const bound = await call(b.url, 'POST', `/p/${project}/realtime`, admin, {
        client_id: stream.clientId,
        subscriptions: ['items'],
        since: 'not-a-number',
      });
      assert.equal(bound.status, 200, JSON.stringify(bound.body));
      const marker = 98_000 + round;
      assert.equal(
        (await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: marker, owner: users[0]!.id })).status,
        201,
      );
      // The marker is the barrier: an older event sent after the reset would come before it.
      const judged = await stream.before((e) => e.json?.record?.n === marker, 10_000);
      assert.deepEqual(
        judged.map((e) => (e.event === 'items' ? e.json.record.n : e.event)),
        ['reset'],
        `round ${round}`,
      );
    }
  });

  it('a logout through one process ends the binding on the other (auth_expired)', async () => {
    const login = await call(
      a.url,
      'POST',
      `/p/${project}/auth/login`,
      {},
      { email: 'ada@example.com', password: PASSWORD },
    );
    const onB = await subscribe(b, { authorization: `Bearer ${login.body.token}` });
    // Sees every item: once it has one, B's feed has judged that item for onB too.
    const witness = await subscribe(b, admin);
    assert.equal(
      (await call(a.url, 'POST', `/p/${project}/auth/logout`, { authorization: `Bearer ${login.body.token}` })).status,
      204,
    );
    await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: 5000, owner: users[0]!.id });
    await onB.waitFor(1, (e) => e.event === 'auth_expired', 10_000);
    await witness.waitFor(1, (e) => e.json?.record?.n === 5000, 10_000);
    // Bound again with the admin key, its next event is the barrier: the item written after the
    // logout, had the ended binding let it through, would come before it.
    const rebound = await call(b.url, 'POST', `/p/${project}/realtime`, admin, {
      client_id: onB.clientId,
      subscriptions: ['items'],
    });
    assert.equal(rebound.status, 200, JSON.stringify(rebound.body));
    assert.equal(
      (await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: 5001, owner: users[0]!.id })).status,
      201,
    );
    assert.deepEqual(
      (await onB.before((e) => e.json?.record?.n === 5001, 10_000)).map((e) => e.event),
      ['auth_expired'],
    );
  });

  it('SIGTERM closes the streams of the stopping process; a client resumes on the other with since', async () => {
    const onB = await subscribe(b, admin);
    await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: 6000, owner: users[0]!.id });
    const [last] = await onB.waitFor(1, undefined, 10_000);
    b.child.kill('SIGTERM');
    await onB.waitForEnd(10_000);
    await b.exited;
    await call(a.url, 'POST', `/p/${project}/api/items`, admin, { n: 6001, owner: users[0]!.id });
    const resumed = await subscribe(a, admin, last!.id);
    const [missed] = await resumed.waitFor(1, undefined, 10_000);
    assert.equal(missed!.json.record.n, 6001);
  });
});
