/**
 * Scenarios for dashboard sessions (contract §12): POST /v1/dashboard/sessions exchanges the
 * platform key or a project's admin key for a short-lived token sent as X-Dashboard-Token,
 * with the powers of the key it came from; GET and DELETE /v1/dashboard/sessions/current read
 * and sign it out. Covers the caller matrix, expiry on the test clock, sign-out, another
 * project, key rotation and a restart with another platform key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { openStream } from '../helpers/sse-client.js';
import { createTestDatabase, testEngine } from '../helpers/test-database.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const START = Date.parse('2026-09-01T08:00:00.000Z');
const TWELVE_HOURS = 12 * 60 * 60;
const clock = new TestClock(START);
const platform = { 'x-platform-key': PLATFORM_KEY };
let server: TestServer;
let first: TestProject;
let second: TestProject;

before(async () => {
  server = await startTestServer({}, { clock });
  first = await createProject(server);
  second = await createProject(server);
  for (const project of [first, second])
    await putTable(server, project, 'notes', { columns: [{ name: 'body', type: 'text' }] });
});
after(() => server.close());

/** Exchanges keys (headers) for a dashboard token; asserts the 201. */
async function signIn(
  headers: Record<string, string>,
  body: unknown = {},
): Promise<{ token: string; expires_at: string; scope: string; project_id: string | null }> {
  const response = await server.request('POST', '/v1/dashboard/sessions', { headers, body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

const dashboard = (token: string) => ({ 'x-dashboard-token': token });

describe('exchanging a key for a dashboard token', () => {
  it('the platform key → 201, an rbd_ token for every project, ending 12 h later; the key not answered', async () => {
    const response = await server.request('POST', '/v1/dashboard/sessions', { headers: platform, body: {} });
    assert.equal(response.status, 201, response.text);
    const { token, expires_at, scope, project_id } = response.body.data;
    assert.match(token, /^rbd_[0-9A-Za-z]{16}\.[0-9A-Za-z]{40}$/);
    assert.equal(expires_at, new Date(clock.now() + TWELVE_HOURS * 1000).toISOString());
    assert.equal(scope, 'platform');
    assert.equal(project_id, null);
    assert.ok(!response.text.includes(PLATFORM_KEY));
  });

  it('a project admin key with its project_id → a token scoped to that project', async () => {
    const session = await signIn(first.admin, { project_id: first.id });
    assert.equal(session.scope, 'project');
    assert.equal(session.project_id, first.id);
  });

  const refusals: [string, () => Record<string, string>, () => unknown, number, string][] = [
    ['no credentials', () => ({}), () => ({}), 401, 'AUTH_REQUIRED'],
    ['a wrong platform key', () => ({ 'x-platform-key': `${PLATFORM_KEY}x` }), () => ({}), 401, 'AUTH_INVALID_KEY'],
    [
      'the pk_ key in X-Admin-Key',
      () => ({ 'x-admin-key': first.publishableKey }),
      () => ({ project_id: first.id }),
      401,
      'AUTH_INVALID_KEY',
    ],
    ['the pk_ key in X-Api-Key', () => first.anon, () => ({ project_id: first.id }), 401, 'AUTH_REQUIRED'],
    ["another project's admin key", () => second.admin, () => ({ project_id: first.id }), 401, 'AUTH_INVALID_KEY'],
    ['an admin key without project_id', () => first.admin, () => ({}), 400, 'VALIDATION_FAILED'],
    ['the platform key with a project_id', () => platform, () => ({ project_id: first.id }), 400, 'VALIDATION_FAILED'],
    [
      'an admin key for an unknown project',
      () => first.admin,
      () => ({ project_id: 'no-such-project' }),
      404,
      'PROJECT_NOT_FOUND',
    ],
    ['an unknown body field', () => platform, () => ({ ttl: 5 }), 400, 'VALIDATION_FAILED'],
  ];
  for (const [name, headers, body, status, code] of refusals) {
    it(`${name} → ${status} ${code}`, async () => {
      assertError(
        await server.request('POST', '/v1/dashboard/sessions', { headers: headers(), body: body() }),
        status,
        code,
      );
    });
  }

  it('a dashboard token cannot make another (it would outlive its 12 hours) → 401 AUTH_REQUIRED', async () => {
    const { token } = await signIn(platform);
    assertError(
      await server.request('POST', '/v1/dashboard/sessions', { headers: dashboard(token), body: {} }),
      401,
      'AUTH_REQUIRED',
    );
  });

  it("an end user's access token → 401 AUTH_REQUIRED", async () => {
    const project = await createAuthProject(server);
    const user = await signUp(server, project, 'grace@example.com');
    assertError(
      await server.request('POST', '/v1/dashboard/sessions', {
        headers: bearer(user.token),
        body: { project_id: project.id },
      }),
      401,
      'AUTH_REQUIRED',
    );
  });
});

describe('a dashboard token has the powers of its key', () => {
  it('a platform token: the platform API and every project (schema, settings, keys, data, OpenAPI)', async () => {
    const headers = dashboard((await signIn(platform)).token);
    assert.equal((await server.request('GET', '/v1/projects', { headers })).status, 200);
    for (const project of [first, second]) {
      for (const route of ['v1/tables', 'v1/settings', 'v1/keys', 'v1/emails', 'v1/openapi.json', 'api/notes']) {
        const response = await server.request('GET', `/p/${project.id}/${route}`, { headers });
        assert.equal(response.status, 200, `${route}: ${response.text}`);
      }
      const created = await server.request('POST', `/p/${project.id}/api/notes`, {
        headers,
        body: { body: 'from the dashboard' },
      });
      assert.equal(created.status, 201, created.text);
    }
  });

  it('a project token: its project only; another project or the platform API → 401 AUTH_INVALID_TOKEN', async () => {
    const headers = dashboard((await signIn(first.admin, { project_id: first.id })).token);
    assert.equal((await server.request('GET', `/p/${first.id}/v1/tables`, { headers })).status, 200);
    assert.equal((await server.request('GET', `/p/${first.id}/api/notes`, { headers })).status, 200);
    assertError(await server.request('GET', `/p/${second.id}/v1/tables`, { headers }), 401, 'AUTH_INVALID_TOKEN');
    assertError(await server.request('GET', `/p/${second.id}/api/notes`, { headers }), 401, 'AUTH_INVALID_TOKEN');
    assertError(await server.request('GET', '/v1/projects', { headers }), 401, 'AUTH_INVALID_TOKEN');
  });

  it('GET /v1/dashboard/sessions/current describes the token, never repeating it', async () => {
    const session = await signIn(first.admin, { project_id: first.id });
    const response = await server.request('GET', '/v1/dashboard/sessions/current', {
      headers: dashboard(session.token),
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      data: { expires_at: session.expires_at, scope: 'project', project_id: first.id },
    });
    assertError(await server.request('GET', '/v1/dashboard/sessions/current'), 401, 'AUTH_REQUIRED');
  });

  it('a malformed, unknown or altered token → 401 AUTH_INVALID_TOKEN, even beside a good key', async () => {
    const { token } = await signIn(platform);
    const altered = `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;
    const unknown = `rbd_${'A'.repeat(16)}.${'B'.repeat(40)}`;
    for (const bad of ['not-a-token', altered, unknown]) {
      assertError(
        await server.request('GET', `/p/${first.id}/v1/tables`, { headers: dashboard(bad) }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      assertError(
        await server.request('GET', `/p/${first.id}/api/notes`, { headers: { ...first.admin, ...dashboard(bad) } }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      assertError(
        await server.request('GET', '/v1/projects', { headers: { ...platform, ...dashboard(bad) } }),
        401,
        'AUTH_INVALID_TOKEN',
      );
    }
  });

  it('a page on another origin may not send X-Dashboard-Token (preflight refuses it), as X-Admin-Key', async () => {
    const response = await server.request('OPTIONS', `/p/${first.id}/api/notes`, {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-dashboard-token',
      },
    });
    assert.doesNotMatch(
      response.headers.get('access-control-allow-headers') ?? '',
      /dashboard-token|admin-key|platform-key/i,
    );
  });

  it("a realtime subscription with a token receives the table's events", async () => {
    const headers = dashboard((await signIn(first.admin, { project_id: first.id })).token);
    const stream = await openStream(server.url, first.id);
    try {
      const bound = await server.request('POST', `/p/${first.id}/realtime`, {
        headers,
        body: { client_id: stream.clientId, subscriptions: ['notes'] },
      });
      assert.equal(bound.status, 200, bound.text);
      await server.request('POST', `/p/${first.id}/api/notes`, { headers: first.admin, body: { body: 'live' } });
      const [event] = await stream.waitFor(1, (e) => e.event === 'notes');
      assert.equal(event!.json.record.body, 'live');
    } finally {
      stream.close();
    }
  });
});

describe('a dashboard token ends', () => {
  it('12 hours after sign-in → 401 AUTH_TOKEN_EXPIRED (a second before, it still works)', async () => {
    const headers = dashboard((await signIn(platform)).token);
    clock.advance(TWELVE_HOURS - 1);
    assert.equal((await server.request('GET', `/p/${first.id}/v1/tables`, { headers })).status, 200);
    clock.advance(1);
    assertError(await server.request('GET', `/p/${first.id}/v1/tables`, { headers }), 401, 'AUTH_TOKEN_EXPIRED');
    assertError(await server.request('GET', '/v1/projects', { headers }), 401, 'AUTH_TOKEN_EXPIRED');
    assertError(await server.request('GET', `/p/${first.id}/api/notes`, { headers }), 401, 'AUTH_TOKEN_EXPIRED');
  });

  it('DELETE /v1/dashboard/sessions/current → 204; then 401 AUTH_INVALID_TOKEN; other tokens work', async () => {
    const signedOut = dashboard((await signIn(platform)).token);
    const other = dashboard((await signIn(platform)).token);
    const response = await server.request('DELETE', '/v1/dashboard/sessions/current', { headers: signedOut });
    assert.equal(response.status, 204, response.text);
    assertError(await server.request('GET', '/v1/projects', { headers: signedOut }), 401, 'AUTH_INVALID_TOKEN');
    assertError(
      await server.request('GET', `/p/${first.id}/api/notes`, { headers: signedOut }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    assertError(
      await server.request('DELETE', '/v1/dashboard/sessions/current', { headers: signedOut }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    assertError(await server.request('DELETE', '/v1/dashboard/sessions/current'), 401, 'AUTH_REQUIRED');
    assert.equal((await server.request('GET', '/v1/projects', { headers: other })).status, 200);
  });

  it('rotating the sk_ key out ends its tokens: at once with no grace, else when the grace ends', async () => {
    const project = await createProject(server);
    const immediate = dashboard((await signIn(project.admin, { project_id: project.id })).token);
    const platformToken = dashboard((await signIn(platform)).token);
    const rotated = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: immediate,
      body: { type: 'sk' },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: immediate }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    assert.equal(
      (await server.request('GET', `/p/${project.id}/v1/tables`, { headers: platformToken })).status,
      200,
      'a platform token is not tied to project keys',
    );

    const current = { 'x-admin-key': rotated.body.data.admin_key as string };
    const graced = dashboard((await signIn(current, { project_id: project.id })).token);
    assert.equal(
      (
        await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
          headers: current,
          body: { type: 'sk', grace_seconds: 60 },
        })
      ).status,
      200,
    );
    assert.equal(
      (await server.request('GET', `/p/${project.id}/v1/tables`, { headers: graced })).status,
      200,
      'works during the grace period',
    );
    assertError(
      await server.request('POST', `/p/${project.id}/v1/rotate-keys`, { headers: graced, body: { type: 'sk' } }),
      401,
      'AUTH_INVALID_KEY',
    );
    clock.advance(60);
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: graced }),
      401,
      'AUTH_INVALID_TOKEN',
    );
  });

  it('a realtime client bound with a token gets auth_expired when its sk_ key is rotated out or 12 h end', async () => {
    const project = await createProject(server);
    await putTable(server, project, 'notes', { columns: [{ name: 'body', type: 'text' }] });
    const bind = async (token: string) => {
      const stream = await openStream(server.url, project.id);
      const bound = await server.request('POST', `/p/${project.id}/realtime`, {
        headers: dashboard(token),
        body: { client_id: stream.clientId, subscriptions: ['notes'] },
      });
      assert.equal(bound.status, 200, bound.text);
      return stream;
    };
    const byProjectToken = await bind((await signIn(project.admin, { project_id: project.id })).token);
    const byPlatformToken = await bind((await signIn(platform)).token);
    try {
      assert.equal(
        (
          await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
            headers: project.admin,
            body: { type: 'sk' },
          })
        ).status,
        200,
      );
      await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: platform,
        body: { body: 'after the rotation' },
      });
      await byProjectToken.waitFor(1, (e) => e.event === 'auth_expired');
      await byPlatformToken.waitFor(1, (e) => e.event === 'notes');
      assert.deepEqual(
        byProjectToken.received().map((e) => e.event),
        ['auth_expired'],
        'no row event after the key was rotated out',
      );
      clock.advance(TWELVE_HOURS);
      await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: platform,
        body: { body: 'after 12 hours' },
      });
      await byPlatformToken.waitFor(1, (e) => e.event === 'auth_expired');
      assert.deepEqual(
        byPlatformToken.received().map((e) => e.event),
        ['notes', 'auth_expired'],
      );
    } finally {
      byProjectToken.close();
      byPlatformToken.close();
    }
  });

  it("deleting the project ends its tokens' powers (404 PROJECT_NOT_FOUND, as for its keys)", async () => {
    const project = await createProject(server);
    const headers = dashboard((await signIn(project.admin, { project_id: project.id })).token);
    assert.equal((await server.request('DELETE', `/v1/projects/${project.id}`, { headers: platform })).status, 204);
    assertError(await server.request('GET', `/p/${project.id}/v1/tables`, { headers }), 404, 'PROJECT_NOT_FOUND');
  });
});

describe('dashboard tokens are stored durably', () => {
  it('on PostgreSQL, a token made on one server works on another; signed out on one, refused at once on the other', {
    skip: testEngine() !== 'postgres' && 'PostgreSQL only',
  }, async () => {
    const database = await createTestDatabase();
    const one = await startTestServer({ DATABASE_URL: database.url });
    const two = await startTestServer({ DATABASE_URL: database.url });
    try {
      const project = await createProject(one);
      const token = dashboard(
        (
          await one.request('POST', '/v1/dashboard/sessions', {
            headers: project.admin,
            body: { project_id: project.id },
          })
        ).body.data.token,
      );
      assert.equal((await two.request('GET', `/p/${project.id}/v1/tables`, { headers: token })).status, 200);
      assert.equal((await two.request('DELETE', '/v1/dashboard/sessions/current', { headers: token })).status, 204);
      assertError(
        await one.request('GET', `/p/${project.id}/v1/tables`, { headers: token }),
        401,
        'AUTH_INVALID_TOKEN',
      );
    } finally {
      await one.close();
      await two.close();
      await database.drop();
    }
  });

  it('a token survives a restart; a platform token dies on a restart with another PLATFORM_KEY', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-dashboard-tokens-'));
    let restarted = await startTestServer({}, { dataDir });
    try {
      const project = await createProject(restarted);
      const exchange = async (headers: Record<string, string>, body: unknown) =>
        (await restarted.request('POST', '/v1/dashboard/sessions', { headers, body })).body.data.token as string;
      const platformToken = dashboard(await exchange(platform, {}));
      const projectToken = dashboard(await exchange(project.admin, { project_id: project.id }));
      await restarted.close();
      restarted = await startTestServer({}, { dataDir });
      assert.equal((await restarted.request('GET', '/v1/projects', { headers: platformToken })).status, 200);
      assert.equal(
        (await restarted.request('GET', `/p/${project.id}/v1/tables`, { headers: projectToken })).status,
        200,
      );
      await restarted.close();
      restarted = await startTestServer({ PLATFORM_KEY: 'rb_another_platform_key_0123456789abcdef' }, { dataDir });
      assertError(
        await restarted.request('GET', '/v1/projects', { headers: platformToken }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      assertError(
        await restarted.request('GET', `/p/${project.id}/v1/tables`, { headers: platformToken }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      assert.equal(
        (await restarted.request('GET', `/p/${project.id}/v1/tables`, { headers: projectToken })).status,
        200,
        'a project token is tied to its sk_ key only',
      );
    } finally {
      await restarted.close();
      rmSync(dataDir, { recursive: true, force: true });
      // The servers above shared one database named after dataDir; it is this test's to drop.
      if (testEngine() === 'postgres') await (await createTestDatabase(dataDir)).drop();
    }
  });
});
