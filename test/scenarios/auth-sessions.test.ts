/**
 * Scenarios for session management (contract §13): GET/DELETE /auth/sessions[/{id}],
 * logout scopes, the admin endpoints for a user's sessions, and `last_used_at` written at
 * most once a minute per session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, logIn, PASSWORD, signUp } from '../helpers/auth-fixtures.js';
import { startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
const clock = new TestClock(Date.parse('2026-06-01T10:00:00.000Z'));
before(async () => {
  server = await startTestServer({}, { clock });
  project = await createAuthProject(server);
});
after(() => server.close());

async function loginAs(email: string, agent: string): Promise<{ token: string; refresh_token: string }> {
  const response = await server.request('POST', `/p/${project.id}/auth/login`, {
    headers: { 'user-agent': agent },
    body: { email, password: PASSWORD },
  });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

const sessionsOf = (token: string) =>
  server.request('GET', `/p/${project.id}/auth/sessions`, { headers: bearer(token) });
const isLive = async (token: string) =>
  (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(token) })).status === 200;

describe('GET /p/{id}/auth/sessions', () => {
  it("lists the caller's live sessions with the exact fields, current marked, user agent kept", async () => {
    await signUp(server, project, 'list@example.com');
    const laptop = await loginAs('list@example.com', 'Laptop/1.0');
    const phone = await loginAs('list@example.com', 'Phone/2.0');
    const other = await signUp(server, project, 'other-list@example.com');
    const response = await sessionsOf(phone.token);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['data']);
    const sessions = response.body.data as {
      id: string;
      created_at: string;
      last_used_at: string | null;
      user_agent: string | null;
      current: boolean;
    }[];
    assert.equal(sessions.length, 3, 'signup, laptop and phone; never the other user');
    for (const session of sessions)
      assert.deepEqual(Object.keys(session).sort(), ['created_at', 'current', 'id', 'last_used_at', 'user_agent']);
    assert.deepEqual(
      sessions.map((s) => s.current),
      [false, false, true],
    );
    assert.deepEqual(
      sessions.slice(1).map((s) => s.user_agent),
      ['Laptop/1.0', 'Phone/2.0'],
    );
    assert.equal(sessions[2]!.last_used_at, '2026-06-01T10:00:00.000Z');
    const fromLaptop = await sessionsOf(laptop.token);
    assert.deepEqual(
      fromLaptop.body.data.map((s: { current: boolean }) => s.current),
      [false, true, false],
    );
    assert.equal((await sessionsOf(other.token)).body.data.length, 1);
  });

  it("401 AUTH_REQUIRED without a bearer, the admin key alone included (sessions are a signed-in user's)", async () => {
    assertError(await server.request('GET', `/p/${project.id}/auth/sessions`), 401, 'AUTH_REQUIRED');
    assertError(
      await server.request('GET', `/p/${project.id}/auth/sessions`, { headers: project.admin }),
      401,
      'AUTH_REQUIRED',
    );
    assertError(
      await server.request('DELETE', `/p/${project.id}/auth/sessions/some-id`, { headers: project.admin }),
      401,
      'AUTH_REQUIRED',
    );
  });

  it('last_used_at moves on use, but at most once a minute', async () => {
    const user = await signUp(server, project, 'touch@example.com');
    const first = (await sessionsOf(user.token)).body.data[0].last_used_at;
    clock.advance(30);
    assert.equal((await sessionsOf(user.token)).body.data[0].last_used_at, first, 'within a minute: no write');
    clock.advance(31);
    await sessionsOf(user.token);
    const moved = (await sessionsOf(user.token)).body.data[0].last_used_at;
    assert.equal(moved, new Date(clock.now()).toISOString());
  });
});

describe('DELETE /p/{id}/auth/sessions/{session_id}', () => {
  it("204 ends that session at once (access and refresh token); the caller's own stays", async () => {
    await signUp(server, project, 'del@example.com');
    const keep = await loginAs('del@example.com', 'Keep');
    const end = await loginAs('del@example.com', 'End');
    const target = (await sessionsOf(keep.token)).body.data.find((s: { user_agent: string }) => s.user_agent === 'End');
    const response = await server.request('DELETE', `/p/${project.id}/auth/sessions/${target.id}`, {
      headers: bearer(keep.token),
    });
    assert.equal(response.status, 204, response.text);
    assert.equal(await isLive(end.token), false);
    assertError(
      await server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: end.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
    assert.equal(await isLive(keep.token), true);
    assert.equal(
      (await sessionsOf(keep.token)).body.data.some((s: { id: string }) => s.id === target.id),
      false,
    );
  });

  it("another user's session, an unknown id or an ended one: 404 ROW_NOT_FOUND, and it stays live", async () => {
    const mallory = await signUp(server, project, 'mallory@example.com');
    const victim = await signUp(server, project, 'victim@example.com');
    const victimSession = (await sessionsOf(victim.token)).body.data[0].id;
    assertError(
      await server.request('DELETE', `/p/${project.id}/auth/sessions/${victimSession}`, {
        headers: bearer(mallory.token),
      }),
      404,
      'ROW_NOT_FOUND',
    );
    assert.equal(await isLive(victim.token), true);
    assertError(
      await server.request('DELETE', `/p/${project.id}/auth/sessions/no-such-session`, {
        headers: bearer(mallory.token),
      }),
      404,
      'ROW_NOT_FOUND',
    );
  });
});

describe('POST /p/{id}/auth/logout?scope=', () => {
  async function threeSessions(email: string) {
    await signUp(server, project, email);
    return [
      await logIn(server, project, email),
      await logIn(server, project, email),
      await logIn(server, project, email),
    ];
  }

  it('local (the default): only this session ends', async () => {
    const [a, b] = await threeSessions('local@example.com');
    assert.equal(
      (await server.request('POST', `/p/${project.id}/auth/logout?scope=local`, { headers: bearer(a!.token) })).status,
      204,
    );
    assert.deepEqual([await isLive(a!.token), await isLive(b!.token)], [false, true]);
  });

  it('others: every other session ends, this one stays', async () => {
    const [a, b, c] = await threeSessions('others@example.com');
    assert.equal(
      (await server.request('POST', `/p/${project.id}/auth/logout?scope=others`, { headers: bearer(b!.token) })).status,
      204,
    );
    assert.deepEqual([await isLive(a!.token), await isLive(b!.token), await isLive(c!.token)], [false, true, false]);
    assert.equal((await sessionsOf(b!.token)).body.data.length, 1);
  });

  it("global: all of the user's sessions end, other users keep theirs", async () => {
    const [a, b] = await threeSessions('global@example.com');
    const bystander = await signUp(server, project, 'bystander@example.com');
    assert.equal(
      (await server.request('POST', `/p/${project.id}/auth/logout?scope=global`, { headers: bearer(a!.token) })).status,
      204,
    );
    assert.deepEqual(
      [await isLive(a!.token), await isLive(b!.token), await isLive(bystander.token)],
      [false, false, true],
    );
  });

  it('an unknown scope: 400 VALIDATION_FAILED, and nothing ends', async () => {
    const user = await signUp(server, project, 'scope@example.com');
    assertError(
      await server.request('POST', `/p/${project.id}/auth/logout?scope=everything`, { headers: bearer(user.token) }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(await isLive(user.token), true);
  });
});

describe('admin: /p/{id}/v1/users/{user_id}/sessions', () => {
  it("GET lists a user's live sessions; DELETE ends all of them (204)", async () => {
    const user = await signUp(server, project, 'admin-view@example.com');
    const second = await loginAs('admin-view@example.com', 'Second');
    const bystander = await signUp(server, project, 'admin-bystander@example.com');
    const listed = await server.request('GET', `/p/${project.id}/v1/users/${user.user.id}/sessions`, {
      headers: project.admin,
    });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.data.length, 2);
    assert.deepEqual(
      listed.body.data.map((s: { current: boolean }) => s.current),
      [false, false],
    );
    const ended = await server.request('DELETE', `/p/${project.id}/v1/users/${user.user.id}/sessions`, {
      headers: project.admin,
    });
    assert.equal(ended.status, 204, ended.text);
    assert.deepEqual(
      [await isLive(user.token), await isLive(second.token), await isLive(bystander.token)],
      [false, false, true],
    );
    assert.deepEqual(
      (await server.request('GET', `/p/${project.id}/v1/users/${user.user.id}/sessions`, { headers: project.admin }))
        .body,
      { data: [] },
    );
  });

  it('an unknown user: 404 ROW_NOT_FOUND; no or a wrong key: 401', async () => {
    assertError(
      await server.request('GET', `/p/${project.id}/v1/users/nobody/sessions`, { headers: project.admin }),
      404,
      'ROW_NOT_FOUND',
    );
    assertError(
      await server.request('DELETE', `/p/${project.id}/v1/users/nobody/sessions`, { headers: project.admin }),
      404,
      'ROW_NOT_FOUND',
    );
    assertError(await server.request('GET', `/p/${project.id}/v1/users/nobody/sessions`), 401, 'AUTH_REQUIRED');
    assertError(
      await server.request('GET', `/p/${project.id}/v1/users/nobody/sessions`, { headers: project.anon }),
      401,
      'AUTH_REQUIRED',
    );
  });
});
