/**
 * CORS with two servers on one PostgreSQL database (contract §0, §8): a `cors_origins` change
 * made through one server decides the very next answer of the other, actual requests,
 * errors and preflights alike (the settings come from each server's project cache, which
 * reloads when another process changed the system tables).
 * @engine postgres — the PostgreSQL pass only (SQLite is one process by design).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { patchSettings } from '../helpers/auth-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

describe('two servers on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let project: TestProject;

  before(async () => {
    database = await createTestDatabase();
    a = await startTestServer({ DATABASE_URL: database.url });
    b = await startTestServer({ DATABASE_URL: database.url });
    project = await createProject(a);
    await putTable(a, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: { list: '' } });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const list = (server: TestServer, origin: string, headers = project.anon) =>
    server.request('GET', `/p/${project.id}/api/notes`, { headers: { ...headers, origin } });
  const preflight = (server: TestServer, origin: string) =>
    server.request('OPTIONS', `/p/${project.id}/api/notes`, {
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });

  it("a change made through A decides B's next answers", async () => {
    // B has the project cached with the default ["*"].
    assert.equal((await list(b, EVIL)).headers.get('access-control-allow-origin'), '*');

    await patchSettings(a, project, { cors_origins: [APP] });
    const refused = await list(b, EVIL);
    assert.equal(refused.status, 200);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    assert.equal((await list(b, APP)).headers.get('access-control-allow-origin'), APP);
    const error = await list(b, EVIL, {});
    assert.equal(error.body?.error?.code, 'AUTH_REQUIRED');
    assert.equal(error.headers.get('access-control-allow-origin'), null);
    assert.equal((await preflight(b, EVIL)).headers.get('access-control-allow-origin'), null);
    assert.equal((await preflight(b, APP)).headers.get('access-control-allow-origin'), APP);

    await patchSettings(b, project, { cors_origins: ['*'] });
    assert.equal((await preflight(a, EVIL)).headers.get('access-control-allow-origin'), '*');
    assert.equal((await list(a, EVIL)).headers.get('access-control-allow-origin'), '*');
  });
});
