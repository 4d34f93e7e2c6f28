/**
 * Scenarios for the data API's rate limits (contract §18, `data_rate_limits`) on a server
 * started with RATE_LIMITS=on and a fake clock: the setting's validation, reads and writes
 * counted apart, 429 RATE_LIMITED with Retry-After, nothing written past a limit, per
 * address vs per caller, the admin and platform keys never limited, the check made before
 * any table lookup. The counters are those of the engine's run (memory on SQLite, PostgreSQL
 * on PostgreSQL); a last group runs them on a Redis of its own.
 * Each scenario uses its own project, since counters are per project.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, patchSettings, signUp } from '../helpers/auth-fixtures.js';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.js';
import {
  PLATFORM_KEY,
  putTable,
  startTestServer,
  TestClock,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

const clock = new TestClock();
let server: TestServer;
before(async () => {
  // Behind a trusted proxy (the test itself), so a test can send requests from several addresses.
  server = await startTestServer({ RATE_LIMITS: 'on', TRUST_PROXY: '127.0.0.1' }, { clock });
});
after(() => server.close());

const OPEN = { list: '', view: '', create: '', update: '', delete: '' };

/** A project with an auth table and an open `notes` table, with `data_rate_limits` set. */
async function limitedProject(on: TestServer, limits: unknown): Promise<TestProject> {
  const project = await createAuthProject(on);
  await putTable(on, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: OPEN });
  await patchSettings(on, project, { data_rate_limits: limits });
  return project;
}

const notes = (project: TestProject) => `/p/${project.id}/api/notes`;

/** Asserts 429 RATE_LIMITED with a Retry-After of 1..60 seconds. */
function assertLimited(response: TestResponse): void {
  assertError(response, 429, 'RATE_LIMITED');
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After: ${response.headers.get('retry-after')}`,
  );
}

async function rowCount(on: TestServer, project: TestProject): Promise<number> {
  const response = await on.request('GET', notes(project), { headers: project.admin });
  assert.equal(response.status, 200, response.text);
  return response.body.meta.total;
}

describe('the data_rate_limits setting', () => {
  const settingsOf = async (project: TestProject) =>
    (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin })).body.data;

  it('defaults to null; PATCH stores every field ("per" defaults to address); null clears it', async () => {
    const project = await createAuthProject(server);
    assert.equal((await settingsOf(project)).data_rate_limits, null);
    await patchSettings(server, project, { data_rate_limits: { reads_per_minute: 600 } });
    assert.deepEqual((await settingsOf(project)).data_rate_limits, {
      reads_per_minute: 600,
      writes_per_minute: null,
      per: 'address',
    });
    // A new value replaces the old one whole.
    await patchSettings(server, project, { data_rate_limits: { writes_per_minute: 120, per: 'caller' } });
    assert.deepEqual((await settingsOf(project)).data_rate_limits, {
      reads_per_minute: null,
      writes_per_minute: 120,
      per: 'caller',
    });
    await patchSettings(server, project, { data_rate_limits: null });
    assert.equal((await settingsOf(project)).data_rate_limits, null);
  });

  const bad: [string, unknown][] = [
    ['zero', { reads_per_minute: 0 }],
    ['negative', { writes_per_minute: -1 }],
    ['a fraction', { reads_per_minute: 1.5 }],
    ['a string number', { reads_per_minute: '600' }],
    ['too large', { reads_per_minute: 1_000_000_001 }],
    ['an unknown field', { reads_per_minute: 10, burst: 5 }],
    ['an unknown "per"', { reads_per_minute: 10, per: 'user' }],
    ['a number', 600],
    ['an array', [600]],
  ];
  for (const [name, value] of bad) {
    it(`${name} → 400 VALIDATION_FAILED naming data_rate_limits, nothing stored`, async () => {
      const project = await createAuthProject(server);
      await patchSettings(server, project, { data_rate_limits: { reads_per_minute: 7 } });
      const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
        headers: project.admin,
        body: { data_rate_limits: value },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.match(response.body.error.message, /data_rate_limits/);
      assert.equal((await settingsOf(project)).data_rate_limits.reads_per_minute, 7);
    });
  }
});

describe('reads and writes per address', () => {
  it('the 4th read in a minute (limit 3) → 429 RATE_LIMITED + Retry-After; a minute later allowed', async () => {
    const project = await limitedProject(server, { reads_per_minute: 3 });
    const read = () => server.request('GET', notes(project), { headers: project.anon });
    for (let i = 0; i < 3; i++) assert.equal((await read()).status, 200);
    assertLimited(await read());
    assertLimited(await server.request('GET', `${notes(project)}/no-such-row`, { headers: project.anon }));
    clock.advance(61);
    assert.equal((await read()).status, 200);
  });

  it('writes are counted apart from reads: POST, PATCH, DELETE and bulk each count once', async () => {
    const project = await limitedProject(server, { reads_per_minute: 100, writes_per_minute: 4 });
    const created = await server.request('POST', notes(project), { headers: project.anon, body: { title: 'a' } });
    assert.equal(created.status, 201, created.text);
    const row = `${notes(project)}/${created.body.data.id}`;
    assert.equal((await server.request('PATCH', row, { headers: project.anon, body: { title: 'b' } })).status, 200);
    const bulk = await server.request('POST', `${notes(project)}/bulk`, {
      headers: project.anon,
      body: [{ title: 'c' }, { title: 'd' }],
    });
    assert.equal(bulk.status, 201, bulk.text);
    assert.equal((await server.request('DELETE', row, { headers: project.anon })).status, 204);
    assert.equal(await rowCount(server, project), 2);
    assertLimited(await server.request('POST', notes(project), { headers: project.anon, body: { title: 'e' } }));
    assertLimited(
      await server.request('DELETE', `${notes(project)}/${bulk.body.data[0].id}`, { headers: project.anon }),
    );
    // Nothing written past the limit; reads are still allowed.
    const list = await server.request('GET', notes(project), { headers: project.anon });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((r: { title: string }) => r.title).sort(), ['c', 'd']);
  });

  it('a batch and an update by filter each count as one write, whatever their number of rows', async () => {
    const project = await limitedProject(server, { reads_per_minute: 100, writes_per_minute: 2 });
    const operations = ['a', 'b', 'c'].map((title) => ({ method: 'POST', table: 'notes', body: { title } }));
    const batch = await server.request('POST', `/p/${project.id}/api/batch`, {
      headers: project.anon,
      body: { operations },
    });
    assert.equal(batch.status, 200, batch.text);
    const byFilter = await server.request('PATCH', `${notes(project)}?filter=${encodeURIComponent('true')}`, {
      headers: project.anon,
      body: { title: 'x' },
    });
    assert.equal(byFilter.status, 200, byFilter.text);
    assert.equal(byFilter.body.data.count, 3);
    assertLimited(
      await server.request('POST', `/p/${project.id}/api/batch`, { headers: project.anon, body: { operations } }),
    );
    assert.equal(await rowCount(server, project), 3, 'the refused batch wrote nothing');
  });

  it('only writes limited: reads are never counted', async () => {
    const project = await limitedProject(server, { writes_per_minute: 1 });
    for (let i = 0; i < 5; i++)
      assert.equal((await server.request('GET', notes(project), { headers: project.anon })).status, 200);
  });

  it('the limit is checked before the table is looked up: an unknown table past the limit → 429', async () => {
    const project = await limitedProject(server, { reads_per_minute: 1 });
    assertError(
      await server.request('GET', `/p/${project.id}/api/nothing_here`, { headers: project.anon }),
      404,
      'TABLE_NOT_FOUND',
    );
    assertLimited(await server.request('GET', `/p/${project.id}/api/nothing_here`, { headers: project.anon }));
  });

  it('per address: users and the pk_ key from one address share the count', async () => {
    const project = await limitedProject(server, { reads_per_minute: 2, per: 'address' });
    const ann = await signUp(server, project, 'ann@example.com');
    const bob = await signUp(server, project, 'bob@example.com');
    assert.equal((await server.request('GET', notes(project), { headers: bearer(ann.token) })).status, 200);
    assert.equal((await server.request('GET', notes(project), { headers: bearer(bob.token) })).status, 200);
    assertLimited(await server.request('GET', notes(project), { headers: project.anon }));
  });

  it('per address: each client address (X-Forwarded-For from a TRUST_PROXY proxy) has its own count', async () => {
    const project = await limitedProject(server, { reads_per_minute: 1, per: 'address' });
    const from = (address: string) => ({ ...project.anon, 'x-forwarded-for': address });
    assert.equal((await server.request('GET', notes(project), { headers: from('198.51.100.1') })).status, 200);
    assertLimited(await server.request('GET', notes(project), { headers: from('198.51.100.1') }));
    assert.equal((await server.request('GET', notes(project), { headers: from('198.51.100.2') })).status, 200);
  });

  it('credentials are checked first: a wrong key past the limit is 401, and a 401 does not count', async () => {
    const project = await limitedProject(server, { reads_per_minute: 1 });
    assertError(
      await server.request('GET', notes(project), { headers: { 'x-api-key': 'pk_wrong' } }),
      401,
      'AUTH_INVALID_KEY',
    );
    assert.equal((await server.request('GET', notes(project), { headers: project.anon })).status, 200);
  });

  it('counters are per project: a limited project does not limit another', async () => {
    const first = await limitedProject(server, { reads_per_minute: 1 });
    const second = await limitedProject(server, { reads_per_minute: 1 });
    assert.equal((await server.request('GET', notes(first), { headers: first.anon })).status, 200);
    assertLimited(await server.request('GET', notes(first), { headers: first.anon }));
    assert.equal((await server.request('GET', notes(second), { headers: second.anon })).status, 200);
  });
});

describe('per caller', () => {
  it('each user has a count of their own; the pk_ key has one of its own', async () => {
    const project = await limitedProject(server, { reads_per_minute: 2, writes_per_minute: 1, per: 'caller' });
    const ann = await signUp(server, project, 'ann@example.com');
    const bob = await signUp(server, project, 'bob@example.com');
    for (const headers of [bearer(ann.token), bearer(bob.token), project.anon]) {
      for (let i = 0; i < 2; i++) assert.equal((await server.request('GET', notes(project), { headers })).status, 200);
      assertLimited(await server.request('GET', notes(project), { headers }));
    }
    assert.equal(
      (await server.request('POST', notes(project), { headers: bearer(ann.token), body: { title: 'a' } })).status,
      201,
    );
    assertLimited(await server.request('POST', notes(project), { headers: bearer(ann.token), body: { title: 'b' } }));
    assert.equal(
      (await server.request('POST', notes(project), { headers: bearer(bob.token), body: { title: 'c' } })).status,
      201,
    );
  });

  it("a user's count follows the user across sessions and addresses (a new login buys no fresh count)", async () => {
    const project = await limitedProject(server, { reads_per_minute: 1, per: 'caller' });
    const ann = await signUp(server, project, 'ann@example.com');
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const first = await server.request('GET', notes(project), {
      headers: { ...bearer(ann.token), ...from('203.0.113.1') },
    });
    assert.equal(first.status, 200);
    const again = await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'ann@example.com', password: 'correct horse battery' },
    });
    assert.equal(again.status, 200, again.text);
    assertLimited(
      await server.request('GET', notes(project), { headers: { ...bearer(again.body.token), ...from('203.0.113.2') } }),
    );
    // The pk_ key's count too is the key's, wherever its requests come from.
    assert.equal(
      (await server.request('GET', notes(project), { headers: { ...project.anon, ...from('203.0.113.3') } })).status,
      200,
    );
    assertLimited(
      await server.request('GET', notes(project), { headers: { ...project.anon, ...from('203.0.113.4') } }),
    );
  });
});

describe('never limited', () => {
  it('the admin key, the platform key and an admin dashboard token pass any limit', async () => {
    const project = await limitedProject(server, { reads_per_minute: 1, writes_per_minute: 1 });
    const platform = { 'x-platform-key': PLATFORM_KEY };
    const session = await server.request('POST', '/v1/dashboard/sessions', {
      headers: project.admin,
      body: { project_id: project.id },
    });
    assert.equal(session.status, 201, session.text);
    const dashboard = { 'x-dashboard-token': session.body.data.token };
    for (const headers of [project.admin, platform, dashboard]) {
      for (let i = 0; i < 3; i++) {
        assert.equal((await server.request('GET', notes(project), { headers })).status, 200);
        const created = await server.request('POST', notes(project), { headers, body: { title: `t${i}` } });
        assert.equal(created.status, 201, created.text);
      }
    }
    // The pk_ key is still limited on the same address.
    assert.equal((await server.request('GET', notes(project), { headers: project.anon })).status, 200);
    assertLimited(await server.request('GET', notes(project), { headers: project.anon }));
  });

  it('RATE_LIMITS=off: a limit set is not applied (test rigs)', async () => {
    const off = await startTestServer({ RATE_LIMITS: 'off' });
    try {
      const project = await limitedProject(off, { reads_per_minute: 1 });
      for (let i = 0; i < 3; i++)
        assert.equal((await off.request('GET', notes(project), { headers: project.anon })).status, 200);
    } finally {
      await off.close();
    }
  });
});

describe('counted in Redis (REDIS_URL)', () => {
  let redis: RedisProcess;
  let onRedis: TestServer;
  before(async () => {
    redis = await startRedisProcess();
    onRedis = await startTestServer({ RATE_LIMITS: 'on', REDIS_URL: redis.url });
  });
  after(async () => {
    await onRedis.close();
    await redis.stop();
  });

  it('the 3rd read (limit 2) → 429, and the window is a Redis key', async () => {
    const project = await limitedProject(onRedis, { reads_per_minute: 2 });
    for (let i = 0; i < 2; i++)
      assert.equal((await onRedis.request('GET', notes(project), { headers: project.anon })).status, 200);
    assertLimited(await onRedis.request('GET', notes(project), { headers: project.anon }));
    assert.equal((await redis.keys(`rowbase:rl:data|${project.id}|read|*`)).length, 1);
  });
});
