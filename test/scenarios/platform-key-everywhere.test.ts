/**
 * Scenarios for contract §12: X-Platform-Key is accepted wherever a project's X-Admin-Key is
 * (admin endpoints, schema API, data API), for every project, with the admin key's powers.
 * A wrong platform key is 401 AUTH_INVALID_KEY, and is never ignored in favour of another key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

let server: TestServer;
let first: TestProject;
let second: TestProject;
const platform = { 'x-platform-key': PLATFORM_KEY };
const wrong = { 'x-platform-key': `${PLATFORM_KEY}x` };

before(async () => {
  server = await startTestServer();
  first = await createProject(server);
  second = await createProject(server);
  for (const project of [first, second]) {
    await putTable(server, project, 'notes', { columns: [{ name: 'body', type: 'text' }] });
  }
});
after(() => server.close());

describe('the platform key administers every project', () => {
  const reads: [string, string][] = [
    ['GET', 'v1/tables'],
    ['GET', 'v1/tables/notes'],
    ['GET', 'v1/settings'],
    ['GET', 'v1/keys'],
    ['GET', 'v1/emails'],
    ['GET', 'api/notes'],
  ];
  for (const [method, path] of reads) {
    it(`${method} /p/{id}/${path}, X-Platform-Key → 200 on both projects; wrong → 401 AUTH_INVALID_KEY`, async () => {
      for (const project of [first, second]) {
        const response = await server.request(method, `/p/${project.id}/${path}`, { headers: platform });
        assert.equal(response.status, 200, response.text);
        assertError(
          await server.request(method, `/p/${project.id}/${path}`, { headers: wrong }),
          401,
          'AUTH_INVALID_KEY',
        );
      }
    });
  }

  it('schema API: PUT a table, then a destructive change needs allow_destructive as with the admin key', async () => {
    const created = await server.request('PUT', `/p/${second.id}/v1/tables/tasks`, {
      headers: platform,
      body: {
        columns: [
          { name: 'title', type: 'text' },
          { name: 'n', type: 'integer' },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    assertError(
      await server.request('PUT', `/p/${second.id}/v1/tables/tasks`, {
        headers: platform,
        body: { columns: [{ name: 'title', type: 'text' }] },
      }),
      409,
      'SCHEMA_CHANGE_DESTRUCTIVE',
    );
    const dropped = await server.request('PUT', `/p/${second.id}/v1/tables/tasks?allow_destructive=true`, {
      headers: platform,
      body: { columns: [{ name: 'title', type: 'text' }] },
    });
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(
      dropped.body.data.columns.map((c: { name: string }) => c.name),
      ['title'],
    );
    assert.equal(
      (await server.request('DELETE', `/p/${second.id}/v1/tables/tasks`, { headers: platform })).status,
      204,
    );
  });

  it('data API: create, update, list and delete rows of a table whose rules are all locked (null)', async () => {
    const created = await server.request('POST', `/p/${first.id}/api/notes`, {
      headers: platform,
      body: { body: 'by the operator' },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const patched = await server.request('PATCH', `/p/${first.id}/api/notes/${id}`, {
      headers: platform,
      body: { body: 'edited' },
    });
    assert.equal(patched.body.data.body, 'edited');
    const seenByAdmin = await server.request('GET', `/p/${first.id}/api/notes/${id}`, { headers: first.admin });
    assert.equal(seenByAdmin.body.data.body, 'edited');
    assertError(await server.request('GET', `/p/${first.id}/api/notes`, { headers: first.anon }), 403, 'FORBIDDEN');
    assert.equal((await server.request('DELETE', `/p/${first.id}/api/notes/${id}`, { headers: platform })).status, 204);
    assertError(
      await server.request('GET', `/p/${first.id}/api/notes/${id}`, { headers: first.admin }),
      404,
      'ROW_NOT_FOUND',
    );
  });

  it('data API: the platform key may set email_verified on an auth table, as the admin key may', async () => {
    const project = await createAuthProject(server);
    const user = await signUp(server, project, 'ada@example.com');
    const response = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: platform,
      body: { email_verified: true },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.email_verified, true);
  });

  it('admin endpoints: settings, redirect origins, rotate-keys and rotate-jwt-secret', async () => {
    const project = await createProject(server);
    const patched = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
      headers: platform,
      body: { access_token_ttl: 600 },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.access_token_ttl, 600);
    const origins = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
      headers: platform,
      body: { allowed_redirect_origins: ['https://app.example.com'] },
    });
    assert.deepEqual(origins.body.data.allowed_redirect_origins, ['https://app.example.com']);
    const rotated = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: platform,
      body: { type: 'sk' },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: project.admin }),
      401,
      'AUTH_INVALID_KEY',
    );
    assert.equal(
      (
        await server.request('GET', `/p/${project.id}/v1/tables`, {
          headers: { 'x-admin-key': rotated.body.data.admin_key },
        })
      ).status,
      200,
    );
    assert.equal(
      (await server.request('GET', `/p/${project.id}/v1/tables`, { headers: platform })).status,
      200,
      'a rotation of project keys never touches the platform key',
    );
    const secret = await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, {
      headers: platform,
      body: { revoke_sessions: true },
    });
    assert.equal(secret.status, 200, secret.text);
  });
});

describe('refusals', () => {
  it('a wrong platform key is refused even when a valid admin key is sent alongside', async () => {
    assertError(
      await server.request('GET', `/p/${first.id}/v1/tables`, { headers: { ...wrong, ...first.admin } }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(
      await server.request('GET', `/p/${first.id}/api/notes`, { headers: { ...wrong, ...first.admin } }),
      401,
      'AUTH_INVALID_KEY',
    );
  });

  it('a wrong platform key writes nothing', async () => {
    assertError(
      await server.request('POST', `/p/${first.id}/api/notes`, { headers: wrong, body: { body: 'x' } }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(
      await server.request('PUT', `/p/${first.id}/v1/tables/ghost`, { headers: wrong, body: { columns: [] } }),
      401,
      'AUTH_INVALID_KEY',
    );
    const list = await server.request('GET', `/p/${first.id}/api/notes?filter=${encodeURIComponent('body = "x"')}`, {
      headers: platform,
    });
    assert.equal(list.body.meta.total, 0);
    assertError(
      await server.request('GET', `/p/${first.id}/v1/tables/ghost`, { headers: platform }),
      404,
      'TABLE_NOT_FOUND',
    );
  });

  it("a project's admin key is still limited to its own project", async () => {
    assertError(
      await server.request('GET', `/p/${second.id}/v1/tables`, { headers: first.admin }),
      401,
      'AUTH_INVALID_KEY',
    );
  });

  it('an unknown project with the platform key → 404 PROJECT_NOT_FOUND', async () => {
    assertError(
      await server.request('GET', '/p/no-such-project/v1/tables', { headers: platform }),
      404,
      'PROJECT_NOT_FOUND',
    );
  });

  it('the platform key sent as X-Admin-Key is not an admin key → 401 AUTH_INVALID_KEY', async () => {
    assertError(
      await server.request('GET', `/p/${first.id}/v1/tables`, { headers: { 'x-admin-key': PLATFORM_KEY } }),
      401,
      'AUTH_INVALID_KEY',
    );
  });
});
