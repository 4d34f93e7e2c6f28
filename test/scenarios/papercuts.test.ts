/**
 * Papercuts a newcomer hit (issue 10, item 7), each over real HTTP on both engines: broken
 * references named, suggestions naming the real project, empty bodies, `__proto__` explained,
 * shorthand `@now`, paging words from other APIs, the auth-table rule hint, keys sent as
 * Bearer, and the hint after logout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const json = { 'content-type': 'application/json' };

describe('papercuts', () => {
  let server: TestServer;
  let project: TestProject;
  let users: TestProject;
  const api = (path: string) => `/p/${project.id}/api/${path}`;
  const post = (table: string, body: unknown) => server.request('POST', api(table), { headers: project.admin, body });

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'papercuts');
    await putTable(server, project, 'owners', { columns: [{ name: 'name', type: 'text' }] });
    await putTable(server, project, 'vets', { columns: [{ name: 'name', type: 'text' }] });
    await putTable(server, project, 'pets', {
      columns: [
        { name: 'name', type: 'text' },
        { name: 'owner', type: 'text', references: { table: 'owners', on_delete: 'restrict' } },
        { name: 'vet', type: 'text', required: false, references: { table: 'vets', on_delete: 'set_null' } },
      ],
    });
    await putTable(server, project, 'tasks', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'due', type: 'timestamp' },
      ],
      rules: { list: '', view: '', create: null },
    });
    await putTable(server, project, 'books', { columns: [{ name: 'page', type: 'integer' }] });
    users = await createAuthProject(server);
  });
  after(() => server.close());

  describe('CONFLICT_REFERENCE names the column and the table', () => {
    let owner: string;
    let vet: string;
    before(async () => {
      owner = (await post('owners', { name: 'Ada' })).body.data.id;
      vet = (await post('vets', { name: 'Dr Who' })).body.data.id;
    });

    it('POST with a missing owner → 409, "owner: no row of "owners" has id "nobody""', async () => {
      const response = await post('pets', { name: 'Rex', owner: 'nobody' });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(response, 'owner: no row of "owners" has id "nobody"');
      assert.match(response.body.error.suggestion, /"owners"/);
    });

    it('two references set, only the second missing → names that one (vet → "vets")', async () => {
      const response = await post('pets', { name: 'Rex', owner, vet: 'no-vet' });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(response, 'vet: no row of "vets" has id "no-vet"');
      assert.match(response.body.error.suggestion, /\(or null\)/, 'vet may be null');
    });

    it('bulk: "row 1: owner: ..." and nothing written', async () => {
      const response = await server.request('POST', api('pets/bulk'), {
        headers: project.admin,
        body: [
          { name: 'a', owner },
          { name: 'b', owner: 'ghost' },
        ],
      });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(response, 'row 1: owner: no row of "owners" has id "ghost"');
      assert.equal((await server.request('GET', api('pets'), { headers: project.admin })).body.meta.total, 0);
    });

    it('PATCH to a missing owner names it too', async () => {
      const pet = (await post('pets', { name: 'Fido', owner, vet })).body.data.id;
      const response = await server.request('PATCH', api(`pets/${pet}`), {
        headers: project.admin,
        body: { owner: 'gone' },
      });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(response, 'owner: no row of "owners" has id "gone"');
    });

    it('DELETE of a row pets still refer to (restrict) → names "pets" and its column "owner"; row stays', async () => {
      const response = await server.request('DELETE', api(`owners/${owner}`), { headers: project.admin });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(
        response,
        'Rows of "pets" still refer to this row of "owners" through their column "owner"',
      );
      assert.match(response.body.error.suggestion, /"on_delete": "cascade"/);
      assert.equal((await server.request('GET', api(`owners/${owner}`), { headers: project.admin })).status, 200);
    });
  });

  describe('suggestions name the real project id', () => {
    const cases: {
      name: string;
      send: () => Promise<import('../helpers/test-server.js').TestResponse>;
      status: number;
      code: string;
      path: () => string;
    }[] = [
      {
        name: 'a locked create rule → FORBIDDEN suggests PATCH /p/papercuts/v1/tables/tasks',
        send: () => server.request('POST', api('tasks'), { headers: project.anon, body: { title: 'x' } }),
        status: 403,
        code: 'FORBIDDEN',
        path: () => `PATCH /p/${project.id}/v1/tables/tasks`,
      },
      {
        name: 'a garbage bearer token → AUTH_INVALID_TOKEN suggests POST /p/<id>/auth/refresh',
        send: () => server.request('GET', `/p/${users.id}/auth/me`, { headers: bearer('not-a-jwt') }),
        status: 401,
        code: 'AUTH_INVALID_TOKEN',
        path: () => `POST /p/${users.id}/auth/refresh`,
      },
      {
        name: 'auth on a project without an auth table → AUTH_NOT_CONFIGURED suggests PUT /p/papercuts/v1/tables/...',
        send: () =>
          server.request('POST', `/p/${project.id}/auth/login`, {
            body: { email: 'a@b.co', password: 'x'.repeat(10) },
          }),
        status: 404,
        code: 'AUTH_NOT_CONFIGURED',
        path: () => `PUT /p/${project.id}/v1/tables/`,
      },
    ];
    for (const scenario of cases) {
      it(scenario.name, async () => {
        const response = await scenario.send();
        assertError(response, scenario.status, scenario.code);
        assert.ok(response.body.error.suggestion.includes(scenario.path()), response.text);
        assert.doesNotMatch(response.body.error.suggestion, /\{id\}/);
      });
    }
  });

  describe('an empty body is no body', () => {
    it('DELETE with Content-Type: application/json and no body → 204', async () => {
      const id = (await post('owners', { name: 'temp' })).body.data.id;
      const response = await server.request('DELETE', api(`owners/${id}`), {
        headers: { ...project.admin, ...json },
        rawBody: '',
      });
      assert.equal(response.status, 204, response.text);
      assert.equal((await server.request('GET', api(`owners/${id}`), { headers: project.admin })).status, 404);
    });

    it('POST logout with Content-Type: application/json and no body → 204', async () => {
      const user = await signUp(server, users, 'empty-body@example.com');
      const response = await server.request('POST', `/p/${users.id}/auth/logout`, {
        headers: { ...bearer(user.token), ...json },
        rawBody: '',
      });
      assert.equal(response.status, 204, response.text);
    });

    it('POST create with an empty JSON body → 400 VALIDATION_FAILED (a missing body), not INVALID_JSON', async () => {
      const response = await server.request('POST', api('owners'), {
        headers: { ...project.admin, ...json },
        rawBody: '',
      });
      assertError(response, 400, 'VALIDATION_FAILED');
    });

    it('a body of only whitespace is still not JSON → 400 INVALID_JSON', async () => {
      const response = await server.request('POST', api('owners'), {
        headers: { ...project.admin, ...json },
        rawBody: '  ',
      });
      assertError(response, 400, 'INVALID_JSON');
    });
  });

  describe('__proto__ is refused saying what and why', () => {
    const bodies: [name: string, body: string, at: string][] = [
      ['at the top', '{"name": "x", "__proto__": {"polluted": true}}', 'at __proto__'],
      ['nested in a json value', '{"name": "x", "meta": {"deep": {"__proto__": {}}}}', 'at meta.deep.__proto__'],
      ['spelt with escapes', '{"name": "x", "\\u005f_proto__": {}}', 'at __proto__'],
      ['constructor.prototype', '{"name": "x", "constructor": {"prototype": {}}}', 'constructor.prototype'],
      ['in a bulk row', '[{"name": "x"}, {"__proto__": {}}]', 'at [1].__proto__'],
    ];
    for (const [name, rawBody, at] of bodies) {
      it(`${name} → 400 INVALID_JSON naming the key, its place and prototype pollution`, async () => {
        const route = rawBody.startsWith('[') ? api('owners/bulk') : api('owners');
        const response = await server.request('POST', route, { headers: { ...project.admin, ...json }, rawBody });
        assertError(response, 400, 'INVALID_JSON');
        assertMessageIncludes(response, at);
        assertMessageIncludes(response, 'prototype pollution');
        assert.doesNotMatch(response.body.error.message, /not valid JSON/);
      });
    }
  });

  describe('shorthand due=lt.@now', () => {
    it('is accepted and compares with the request time, as filter= does', async () => {
      const past = (await post('tasks', { title: 'past', due: '2000-01-01T00:00:00Z' })).body.data.id;
      await post('tasks', { title: 'future', due: '2999-01-01T00:00:00Z' });
      const shorthand = await server.request('GET', `${api('tasks')}?due=lt.@now`, { headers: project.anon });
      assert.equal(shorthand.status, 200, shorthand.text);
      assert.deepEqual(
        shorthand.body.data.map((row: { id: string }) => row.id),
        [past],
      );
      const filter = await server.request('GET', `${api('tasks')}?filter=${encodeURIComponent('due < @now')}`, {
        headers: project.anon,
      });
      assert.deepEqual(filter.body.data, shorthand.body.data);
    });
  });

  describe('paging and ordering words of other APIs', () => {
    const cases: [query: string, parameter: string, suggestion: RegExp][] = [
      ['page=2', 'page', /limit=20&offset=40/],
      ['perPage=20', 'perPage', /limit and offset/],
      ['per_page=20', 'per_page', /limit and offset/],
      ['order=title', 'order', /sort=-created_at,title/],
      ['orderBy=title', 'orderBy', /sort=/],
      // expand exists since issue 14: on a table without references it says there is nothing to expand.
      ['expand=owner', 'expand', /nothing to expand/],
    ];
    for (const [query, parameter, suggestion] of cases) {
      it(`${query} → 400 VALIDATION_FILTER pointing to the parameter Rowbase uses`, async () => {
        const response = await server.request('GET', `${api('tasks')}?${query}`, { headers: project.anon });
        assertError(response, 400, 'VALIDATION_FILTER');
        assert.match(response.body.error.message, new RegExp(`^${parameter}: `));
        assert.doesNotMatch(response.body.error.message, /unknown column/);
        assert.match(response.body.error.suggestion, suggestion);
      });
    }

    it('a table with a column named page filters on it: page=eq.3 → 200', async () => {
      await post('books', { page: 3 });
      await post('books', { page: 4 });
      const response = await server.request('GET', `${api('books')}?page=eq.3`, { headers: project.admin });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((row: { page: number }) => row.page),
        [3],
      );
    });
  });

  describe('the locked list rule of an auth table', () => {
    it('→ 403 FORBIDDEN suggesting "id = @request.auth.id", never a bare "" publishing every email', async () => {
      const user = await signUp(server, users, 'lister@example.com');
      const response = await server.request('GET', `/p/${users.id}/api/users`, { headers: bearer(user.token) });
      assertError(response, 403, 'FORBIDDEN');
      assert.ok(
        response.body.error.suggestion.includes(
          `PATCH /p/${users.id}/v1/tables/users {"rules": {"list": "id = @request.auth.id"}}`,
        ),
        response.text,
      );
      assert.doesNotMatch(response.body.error.suggestion, /"list": ""/);
    });

    it('the same rule on an ordinary table still suggests "" (open to everyone)', async () => {
      const response = await server.request('POST', api('tasks'), { headers: project.anon, body: { title: 'x' } });
      assertError(response, 403, 'FORBIDDEN');
      assert.match(response.body.error.suggestion, /"create": ""/);
    });
  });

  describe('a project key sent as Bearer says which header it belongs in', () => {
    const cases: [name: string, key: () => string, where: () => string, header: string][] = [
      ['sk_ key on the data API', () => project.adminKey, () => api('tasks'), 'X-Admin-Key'],
      ['pk_ key on the data API', () => project.publishableKey, () => api('tasks'), 'X-Api-Key'],
      ['sk_ key on /auth/me', () => users.adminKey, () => `/p/${users.id}/auth/me`, 'X-Admin-Key'],
    ];
    for (const [name, key, where, header] of cases) {
      it(`${name} → 401 AUTH_INVALID_TOKEN naming ${header}`, async () => {
        const response = await server.request('GET', where(), { headers: bearer(key()) });
        assertError(response, 401, 'AUTH_INVALID_TOKEN');
        assert.doesNotMatch(response.body.error.message, /tampered/);
        assert.ok(response.body.error.suggestion.includes(`${header} header`), response.text);
        assert.ok(!response.text.includes(key()), 'the key is not echoed');
      });
    }
  });

  describe('after logout', () => {
    it('the old access token → 401 AUTH_INVALID_TOKEN suggesting sign-in, not /auth/refresh', async () => {
      const user = await signUp(server, users, 'bye@example.com');
      assert.equal(
        (await server.request('POST', `/p/${users.id}/auth/logout`, { headers: bearer(user.token) })).status,
        204,
      );
      for (const route of [`/p/${users.id}/auth/me`, `/p/${users.id}/api/users/${user.user.id}`]) {
        const response = await server.request('GET', route, { headers: bearer(user.token) });
        assertError(response, 401, 'AUTH_INVALID_TOKEN');
        assert.ok(response.body.error.suggestion.includes(`POST /p/${users.id}/auth/login`), response.text);
        assert.doesNotMatch(response.body.error.suggestion, /refresh/);
      }
      const refresh = await server.request('POST', `/p/${users.id}/auth/refresh`, {
        body: { refresh_token: user.refresh_token },
      });
      assertError(refresh, 401, 'AUTH_INVALID_REFRESH_TOKEN');
    });
  });
});
