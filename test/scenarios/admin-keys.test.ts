/**
 * Scenarios for key and secret rotation (contract §3): POST rotate-keys (one or both keys,
 * grace periods), POST rotate-jwt-secret (access tokens die, refresh tokens survive unless
 * revoke_sessions), GET keys (never the key itself). All behind X-Admin-Key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, logIn, signUp } from '../helpers/auth-fixtures.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const KEY = /^(sk|pk)_[0-9A-Za-z]{32,}$/;
const tables = (project: TestProject, headers: Record<string, string>) =>
  server.request('GET', `/p/${project.id}/v1/tables`, { headers });
const rows = (project: TestProject, headers: Record<string, string>) =>
  server.request('GET', `/p/${project.id}/api/notes`, { headers });

async function projectWithNotes(): Promise<TestProject> {
  const project = await createProject(server);
  const put = await server.request('PUT', `/p/${project.id}/v1/tables/notes`, {
    headers: project.admin,
    body: { columns: [{ name: 'body', type: 'text' }], rules: { list: '' } },
  });
  assert.equal(put.status, 201);
  return project;
}

describe('caller matrix', () => {
  let project: TestProject;
  let other: TestProject;
  before(async () => {
    project = await createProject(server);
    other = await createProject(server);
  });
  for (const [method, path] of [
    ['POST', 'rotate-keys'],
    ['POST', 'rotate-jwt-secret'],
    ['GET', 'keys'],
  ] as const) {
    it(`${method} ${path}: no key → 401 AUTH_REQUIRED; pk_ or another's sk_ → 401 AUTH_INVALID_KEY`, async () => {
      assertError(await server.request(method, `/p/${project.id}/v1/${path}`), 401, 'AUTH_REQUIRED');
      assertError(
        await server.request(method, `/p/${project.id}/v1/${path}`, {
          headers: { 'x-admin-key': project.publishableKey },
        }),
        401,
        'AUTH_INVALID_KEY',
      );
      assertError(
        await server.request(method, `/p/${project.id}/v1/${path}`, { headers: other.admin }),
        401,
        'AUTH_INVALID_KEY',
      );
      assertError(
        await server.request(method, `/p/no-such-project/v1/${path}`, { headers: project.admin }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });
  }
  it('the refused calls rotated nothing: the original keys still work', async () => {
    assert.equal((await tables(project, project.admin)).status, 200);
  });
});

describe('POST /p/{id}/v1/rotate-keys', () => {
  it('no body → both keys rotate; old ones fail at once, the new ones work', async () => {
    const project = await projectWithNotes();
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body.data).sort(), ['admin_key', 'publishable_key']);
    assert.match(response.body.data.admin_key, KEY);
    assert.match(response.body.data.publishable_key, KEY);
    assert.ok(response.body.data.admin_key.startsWith('sk_') && response.body.data.publishable_key.startsWith('pk_'));
    assertError(await tables(project, project.admin), 401, 'AUTH_INVALID_KEY');
    assertError(await rows(project, project.anon), 401, 'AUTH_INVALID_KEY');
    assert.equal((await tables(project, { 'x-admin-key': response.body.data.admin_key })).status, 200);
    assert.equal((await rows(project, { 'x-api-key': response.body.data.publishable_key })).status, 200);
  });

  it('{"type": "pk"} → only the publishable key rotates', async () => {
    const project = await projectWithNotes();
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: project.admin,
      body: { type: 'pk' },
    });
    assert.deepEqual(Object.keys(response.body.data), ['publishable_key']);
    assert.equal((await tables(project, project.admin)).status, 200);
    assertError(await rows(project, project.anon), 401, 'AUTH_INVALID_KEY');
    assert.equal((await rows(project, { 'x-api-key': response.body.data.publishable_key })).status, 200);
  });

  it('{"type": "sk", "grace_seconds": 3600} → the old admin key keeps working during the grace period', async () => {
    const project = await projectWithNotes();
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: project.admin,
      body: { type: 'sk', grace_seconds: 3600 },
    });
    assert.deepEqual(Object.keys(response.body.data), ['admin_key']);
    assert.equal((await tables(project, project.admin)).status, 200);
    assert.equal((await tables(project, { 'x-admin-key': response.body.data.admin_key })).status, 200);
    assert.equal((await rows(project, project.anon)).status, 200, 'the pk_ key was not touched');
    const keys = await server.request('GET', `/p/${project.id}/v1/keys`, { headers: project.admin });
    const sk = keys.body.data.filter((k: { type: string }) => k.type === 'sk');
    assert.equal(sk.length, 2);
    assert.equal(sk.filter((k: { expires_at: string | null }) => k.expires_at !== null).length, 1);
  });

  it('a key in grace → rotate-keys, rotate-jwt-secret 401 AUTH_INVALID_KEY; others take it', async () => {
    const project = await projectWithNotes();
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: project.admin,
      body: { type: 'sk', grace_seconds: 3600 },
    });
    assert.equal(response.status, 200, response.text);
    const current = { 'x-admin-key': response.body.data.admin_key };
    for (const [path, body] of [
      ['rotate-keys', undefined],
      ['rotate-keys', { type: 'pk' }],
      ['rotate-keys', { type: 'sk', grace_seconds: 60 }],
      ['rotate-jwt-secret', { revoke_sessions: true }],
    ] as const) {
      const refused = await server.request('POST', `/p/${project.id}/v1/${path}`, {
        headers: project.admin,
        ...(body && { body }),
      });
      assertError(refused, 401, 'AUTH_INVALID_KEY');
      assert.match(refused.body.error.suggestion, /current admin key/);
    }
    assert.equal((await tables(project, project.admin)).status, 200, 'the grace key still administers');
    assert.equal((await server.request('GET', `/p/${project.id}/v1/keys`, { headers: project.admin })).status, 200);
    assert.equal((await server.request('GET', `/p/${project.id}/api/notes`, { headers: project.admin })).status, 200);
    assert.equal((await rows(project, project.anon)).status, 200, 'the refused rotations changed nothing');
    assert.equal((await tables(project, current)).status, 200);
    assert.equal(
      (await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, { headers: current })).status,
      200,
    );
    assert.equal(
      (await server.request('POST', `/p/${project.id}/v1/rotate-keys`, { headers: current, body: { type: 'pk' } }))
        .status,
      200,
    );
  });

  it('a key whose grace period ended stops working', async () => {
    const project = await projectWithNotes();
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: project.admin,
      body: { type: 'sk', grace_seconds: 1 },
    });
    assert.equal((await tables(project, project.admin)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assertError(await tables(project, project.admin), 401, 'AUTH_INVALID_KEY');
    assert.equal((await tables(project, { 'x-admin-key': response.body.data.admin_key })).status, 200);
  });

  const refused: [string, unknown][] = [
    ['grace_seconds over 86400', { grace_seconds: 86_401 }],
    ['negative grace_seconds', { grace_seconds: -1 }],
    ['fractional grace_seconds', { grace_seconds: 1.5 }],
    ['grace_seconds as a string', { grace_seconds: '60' }],
    ['an unknown type', { type: 'admin' }],
    ['an unknown field', { kind: 'sk' }],
    ['an array body', ['sk']],
  ];
  for (const [name, body] of refused) {
    it(`${name} → 400 VALIDATION_FAILED, and no key rotates`, async () => {
      const project = await createProject(server);
      assertError(
        await server.request('POST', `/p/${project.id}/v1/rotate-keys`, { headers: project.admin, body }),
        400,
        'VALIDATION_FAILED',
      );
      assert.equal((await tables(project, project.admin)).status, 200);
    });
  }
});

describe('GET /p/{id}/v1/keys', () => {
  it('200 {data: [{type, prefix, created_at, last_used_at, expires_at}]}, never the key or its hash', async () => {
    const project = await createProject(server);
    const response = await server.request('GET', `/p/${project.id}/v1/keys`, { headers: project.admin });
    assert.equal(response.status, 200);
    assert.equal(response.body.data.length, 2);
    for (const key of response.body.data) {
      assert.deepEqual(Object.keys(key).sort(), ['created_at', 'expires_at', 'last_used_at', 'prefix', 'type']);
      assert.equal(key.expires_at, null);
      assert.ok(key.prefix.length >= 4 && key.prefix.length < 12, key.prefix);
    }
    assert.deepEqual(
      response.body.data.map((k: { type: string }) => k.type),
      ['pk', 'sk'],
    );
    assert.ok(project.adminKey.startsWith(response.body.data[1].prefix));
    assert.ok(!response.text.includes(project.adminKey) && !response.text.includes(project.publishableKey));
    assert.doesNotMatch(response.text, /[0-9a-f]{64}/, 'no hash');
  });
});

describe('POST /p/{id}/v1/rotate-jwt-secret', () => {
  it('200 {data: {rotated_at}}: older access tokens → 401; refresh tokens survive and mint good ones', async () => {
    const project = await createAuthProject(server);
    const ada = await signUp(server, project, 'ada@example.com');
    const second = await logIn(server, project, 'ada@example.com');
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body.data), ['rotated_at']);
    assert.ok(!Number.isNaN(Date.parse(response.body.data.rotated_at)));
    for (const token of [ada.token, second.token]) {
      assertError(
        await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(token) }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      assertError(
        await server.request('GET', `/p/${project.id}/api/users/${ada.user.id}`, { headers: bearer(token) }),
        401,
        'AUTH_INVALID_TOKEN',
      );
    }
    const refreshed = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: ada.refresh_token },
    });
    assert.equal(refreshed.status, 200);
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(refreshed.body.token) })).status,
      200,
    );
  });

  it('{"revoke_sessions": true} also ends every refresh token', async () => {
    const project = await createAuthProject(server);
    const bob = await signUp(server, project, 'bob@example.com');
    const response = await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, {
      headers: project.admin,
      body: { revoke_sessions: true },
    });
    assert.equal(response.status, 200);
    assertError(
      await server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: bob.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
    await logIn(server, project, 'bob@example.com');
  });

  it('{"revoke_sessions": "yes"} → 400 VALIDATION_FAILED and nothing rotates', async () => {
    const project = await createAuthProject(server);
    const carol = await signUp(server, project, 'carol@example.com');
    assertError(
      await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, {
        headers: project.admin,
        body: { revoke_sessions: 'yes' },
      }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(carol.token) })).status,
      200,
    );
  });

  it("another project's tokens are untouched", async () => {
    const a = await createAuthProject(server);
    const b = await createAuthProject(server);
    const user = await signUp(server, b, 'dan@example.com');
    await server.request('POST', `/p/${a.id}/v1/rotate-jwt-secret`, { headers: a.admin });
    assert.equal((await server.request('GET', `/p/${b.id}/auth/me`, { headers: bearer(user.token) })).status, 200);
  });
});
