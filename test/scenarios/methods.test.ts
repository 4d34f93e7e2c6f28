/**
 * A method a path does not have: 405 METHOD_NOT_ALLOWED with an `Allow` header listing the
 * methods it does have (HEAD where GET exists, OPTIONS where CORS answers preflights) and a
 * suggestion naming them, on every family of paths; `/p/{id}/api/{table}/bulk` is reserved
 * for POST (never a row called "bulk"); unknown paths stay 404 NOT_FOUND; and a request whose
 * body Fastify refuses before routing (QUERY without Content-Type) is never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { createAuthProject } from '../helpers/auth-fixtures.js';
import { PLATFORM_KEY, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;

before(async () => {
  server = await startTestServer();
  project = await createAuthProject(server);
  await putTable(server, project, 'tasks', {
    columns: [{ name: 'title', type: 'text' }],
    rules: { list: '', view: '', create: '', update: '', delete: '' },
  });
});
after(() => server.close());

describe('a method the path does not have → 405 METHOD_NOT_ALLOWED with Allow', () => {
  // [method, path, Allow, the methods the suggestion names]
  const cases = (): [string, string, string, string][] => [
    ['PUT', `/p/${project.id}/api/tasks`, 'GET, HEAD, POST, PATCH, DELETE, OPTIONS', 'GET, POST, PATCH or DELETE'],
    ['POST', `/p/${project.id}/api/tasks/some-row`, 'GET, HEAD, PATCH, DELETE, OPTIONS', 'GET, PATCH or DELETE'],
    ['GET', `/p/${project.id}/auth/login`, 'POST, OPTIONS', 'POST'],
    ['PATCH', `/p/${project.id}/auth/me`, 'GET, HEAD, OPTIONS', 'GET'],
    ['PUT', `/p/${project.id}/realtime`, 'GET, POST, OPTIONS', 'GET or POST'], // the event stream has no HEAD
    ['POST', `/p/${project.id}/v1/tables`, 'GET, HEAD', 'GET'],
    ['POST', `/p/${project.id}/v1/tables/tasks`, 'GET, HEAD, PUT, PATCH, DELETE', 'GET, PUT, PATCH or DELETE'],
    ['PUT', '/v1/projects', 'GET, HEAD, POST', 'GET or POST'],
    ['PATCH', '/v1/projects/some-project', 'GET, HEAD, DELETE', 'GET or DELETE'],
    ['DELETE', '/health', 'GET, HEAD', 'GET'],
    ['POST', '/_/', 'GET, HEAD', 'GET'],
    ['QUERY', `/p/${project.id}/api/tasks`, 'GET, HEAD, POST, PATCH, DELETE, OPTIONS', 'GET, POST, PATCH or DELETE'],
  ];
  it('answers each family of paths (data, auth, realtime, admin, platform, health, dashboard)', async () => {
    for (const [method, path, allow, named] of cases()) {
      const body = method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, rawBody: '{}' };
      const response = await server.request(method, path, { ...body, headers: { ...project.admin, ...body.headers } });
      assertError(response, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
      assert.equal(response.body.error.suggestion, `Use ${named} on ${path}.`, `${method} ${path}`);
    }
  });

  it('a route of the method that finds nothing stays 404 NOT_FOUND (a missing dashboard asset), not 405', async () => {
    const response = await server.request('GET', '/_/assets/missing.js');
    assertError(response, 404, 'NOT_FOUND');
    assert.equal(response.headers.get('allow'), null);
  });

  it('answers PUT /p/{id}/api/{table} before credentials or body: "Use GET, POST, PATCH or DELETE"', async () => {
    const response = await server.request('PUT', `/p/${project.id}/api/tasks`, {
      rawBody: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    assertError(response, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(response.body.error.suggestion, `Use GET, POST, PATCH or DELETE on /p/${project.id}/api/tasks.`);
  });

  it('answers HEAD on a POST-only path with 405, Allow and no body', async () => {
    const response = await server.request('HEAD', `/p/${project.id}/auth/login`);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
    assert.equal(response.text, '');
  });

  it('carries the CORS headers on a data path, so a page can read it', async () => {
    const response = await server.request('PUT', `/p/${project.id}/api/tasks`, {
      headers: { origin: 'https://app.example.com' },
    });
    assertError(response, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
  });

  it('answers a method the server routes nowhere (SEARCH, QUERY without Content-Type) with 405 too', async () => {
    for (const method of ['QUERY', 'SEARCH']) {
      const response = await server.request(method, `/p/${project.id}/api/tasks`, { headers: project.admin });
      assertError(response, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(response.headers.get('allow'), 'GET, HEAD, POST, PATCH, DELETE, OPTIONS');
    }
  });
});

describe('/p/{id}/api/{table}/bulk is reserved for POST', () => {
  for (const method of ['GET', 'PATCH', 'DELETE', 'PUT']) {
    it(`${method} .../bulk → 405 METHOD_NOT_ALLOWED with Allow: POST, OPTIONS (not ROW_NOT_FOUND)`, async () => {
      const response = await server.request(method, `/p/${project.id}/api/tasks/bulk`, {
        headers: project.admin,
        ...(method !== 'GET' && { body: { title: 'x' } }),
      });
      assertError(response, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
      assert.equal(response.body.error.suggestion, `Use POST on /p/${project.id}/api/tasks/bulk.`);
    });
  }

  it('still creates rows with POST, and reads a row whose id merely starts with "bulk"', async () => {
    const created = await server.request('POST', `/p/${project.id}/api/tasks/bulk`, {
      headers: project.admin,
      body: [{ title: 'a' }],
    });
    assert.equal(created.status, 201, created.text);
    assertError(
      await server.request('GET', `/p/${project.id}/api/tasks/bulky`, { headers: project.admin }),
      404,
      'ROW_NOT_FOUND',
    );
  });

  it('still answers its CORS preflight', async () => {
    const response = await server.request('OPTIONS', `/p/${project.id}/api/tasks/bulk`, {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
  });
});

describe('paths that do not exist stay 404 NOT_FOUND', () => {
  // Preflights are answered under /p/{id}/api/* for any path: OPTIONS alone makes no path exist.
  const paths = (): [string, string][] => [
    ['GET', '/nope'],
    ['PUT', '/nope'],
    ['QUERY', '/nope'],
    ['GET', `/p/${project.id}/api`],
    ['POST', `/p/${project.id}/api/tasks/row/extra`],
    ['DELETE', `/p/${project.id}/auth/nope`],
    ['SEARCH', '/v2/projects'],
  ];
  it('answers unknown paths with any method 404 NOT_FOUND and no Allow header', async () => {
    for (const [method, path] of paths()) {
      const response = await server.request(method, path, { headers: { 'x-platform-key': PLATFORM_KEY } });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal(response.headers.get('allow'), null, `${method} ${path}`);
    }
  });

  it('answers an undecodable URL with a method routed nowhere 400 BAD_REQUEST, not 405', async () => {
    for (const path of ['/nope/%zz', `/p/${project.id}/api/%zz`]) {
      const response = await server.request('SEARCH', path);
      assertError(response, 400, 'BAD_REQUEST');
      assert.equal(response.headers.get('allow'), null, path);
    }
  });
});
