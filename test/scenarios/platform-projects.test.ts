/**
 * The platform API (contract §1): POST/GET/GET one/DELETE /v1/projects over real HTTP,
 * authorised by X-Platform-Key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { projectStorageExists } from '../helpers/storage-inspect.js';
import { createProject, PLATFORM_KEY, putTable, startTestServer, type TestServer } from '../helpers/test-server.js';

const platform = { 'x-platform-key': PLATFORM_KEY };
const ID_PATTERN = /^[a-z0-9][a-z0-9-]{2,39}$/;
const SK_KEY = /^sk_[0-9A-Za-z]{32,}$/;
const PK_KEY = /^pk_[0-9A-Za-z]{32,}$/;

describe('platform API /v1/projects', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('platform key', () => {
    const routes: [string, string][] = [
      ['POST', '/v1/projects'],
      ['GET', '/v1/projects'],
      ['GET', '/v1/projects/some-project'],
      ['DELETE', '/v1/projects/some-project'],
    ];
    for (const [method, route] of routes) {
      it(`${method} ${route} without X-Platform-Key → 401 AUTH_REQUIRED`, async () => {
        const response = await server.request(method, route, method === 'POST' ? { body: { name: 'x' } } : {});
        assertError(response, 401, 'AUTH_REQUIRED');
      });
      it(`${method} ${route} with a wrong X-Platform-Key → 401 AUTH_INVALID_KEY`, async () => {
        const response = await server.request(method, route, {
          headers: { 'x-platform-key': `${PLATFORM_KEY}x` },
          ...(method === 'POST' && { body: { name: 'x' } }),
        });
        assertError(response, 401, 'AUTH_INVALID_KEY');
      });
    }

    it('a project admin key is not a platform key → 401 AUTH_INVALID_KEY', async () => {
      const project = await createProject(server);
      const response = await server.request('GET', '/v1/projects', { headers: { 'x-platform-key': project.adminKey } });
      assertError(response, 401, 'AUTH_INVALID_KEY');
    });
  });

  describe('POST /v1/projects', () => {
    it('creates a project with a generated id and both keys → 201', async () => {
      const response = await server.request('POST', '/v1/projects', { headers: platform, body: { name: 'Demo app' } });
      assert.equal(response.status, 201, response.text);
      const data = response.body.data;
      assert.deepEqual(Object.keys(data).sort(), ['admin_key', 'created_at', 'id', 'name', 'publishable_key']);
      assert.match(data.id, ID_PATTERN);
      assert.equal(data.name, 'Demo app');
      assert.match(data.admin_key, SK_KEY);
      assert.match(data.publishable_key, PK_KEY);
      assert.notEqual(data.admin_key.slice(3), data.publishable_key.slice(3));
      assert.match(data.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    });

    it('generated ids and keys differ between projects', async () => {
      const ids = new Set<string>();
      const keys = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const project = await createProject(server);
        assert.match(project.id, ID_PATTERN);
        ids.add(project.id);
        keys.add(project.adminKey).add(project.publishableKey);
      }
      assert.equal(ids.size, 5);
      assert.equal(keys.size, 10);
    });

    it('takes a given id; the keys work on the new project at once', async () => {
      const response = await server.request('POST', '/v1/projects', {
        headers: platform,
        body: { name: 'Mine', id: 'my-app-1' },
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.id, 'my-app-1');
      const tables = await server.request('GET', '/p/my-app-1/v1/tables', {
        headers: { 'x-admin-key': response.body.data.admin_key },
      });
      assert.equal(tables.status, 200);
      assert.deepEqual(tables.body.data, []);
    });

    it('a taken id → 409 PROJECT_EXISTS', async () => {
      await createProject(server, 'taken-id');
      const response = await server.request('POST', '/v1/projects', {
        headers: platform,
        body: { name: 'Again', id: 'taken-id' },
      });
      assertError(response, 409, 'PROJECT_EXISTS');
    });

    const badBodies: [string, unknown][] = [
      ['id too short', { name: 'x', id: 'ab' }],
      ['id too long (41)', { name: 'x', id: `a${'b'.repeat(40)}` }],
      ['id with upper case', { name: 'x', id: 'MyApp' }],
      ['id starting with a dash', { name: 'x', id: '-app' }],
      ['id with an underscore', { name: 'x', id: 'my_app' }],
      ['id with a slash', { name: 'x', id: 'a/../b' }],
      ['id not a string', { name: 'x', id: 123 }],
      ['name missing', {}],
      ['name empty', { name: '' }],
      ['name not a string', { name: 42 }],
      ['body an array', [{ name: 'x' }]],
    ];
    for (const [label, body] of badBodies) {
      it(`${label} → 400 VALIDATION_FAILED`, async () => {
        const response = await server.request('POST', '/v1/projects', { headers: platform, body });
        assertError(response, 400, 'VALIDATION_FAILED');
      });
    }

    it('ids of 3 and 40 characters and a leading digit are accepted', async () => {
      for (const id of ['a1b', `9${'z'.repeat(39)}`, '0-0']) {
        const response = await server.request('POST', '/v1/projects', {
          headers: platform,
          body: { name: 'edge', id },
        });
        assert.equal(response.status, 201, `${id}: ${response.text}`);
      }
    });
  });

  describe('GET /v1/projects and /v1/projects/{id}', () => {
    let local: TestServer;
    const created: string[] = [];
    before(async () => {
      local = await startTestServer();
      for (let i = 0; i < 4; i++) created.push((await createProject(local, `listed-${i}`)).id);
    });
    after(() => local.close());

    it('lists projects in creation order with meta, never their keys', async () => {
      const response = await local.request('GET', '/v1/projects', { headers: platform });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.meta, { total: 4, limit: 50, offset: 0 });
      assert.deepEqual(
        response.body.data.map((p: { id: string }) => p.id),
        created,
      );
      for (const project of response.body.data)
        assert.deepEqual(Object.keys(project).sort(), ['created_at', 'id', 'name']);
      assert.doesNotMatch(response.text, /sk_|pk_/);
    });

    const paging: [string, string, { total: number; limit: number; offset: number }, number][] = [
      ['limit=2', '?limit=2', { total: 4, limit: 2, offset: 0 }, 2],
      ['limit=2&offset=3', '?limit=2&offset=3', { total: 4, limit: 2, offset: 3 }, 1],
      ['offset past the end', '?offset=10', { total: 4, limit: 50, offset: 10 }, 0],
      ['limit=0', '?limit=0', { total: 4, limit: 0, offset: 0 }, 0],
      ['limit=5000 clamped', '?limit=5000', { total: 4, limit: 1000, offset: 0 }, 4],
    ];
    for (const [label, query, meta, count] of paging) {
      it(`paging ${label} → meta ${JSON.stringify(meta)}`, async () => {
        const response = await local.request('GET', `/v1/projects${query}`, { headers: platform });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.meta, meta);
        assert.equal(response.body.data.length, count);
      });
    }

    for (const query of ['?limit=-1', '?limit=abc', '?offset=-5', '?offset=1.5']) {
      it(`paging ${query} → 400 VALIDATION_FILTER (as on the data API)`, async () => {
        assertError(
          await local.request('GET', `/v1/projects${query}`, { headers: platform }),
          400,
          'VALIDATION_FILTER',
        );
      });
    }

    it('GET one → 200 {id, name, created_at} without keys', async () => {
      const response = await local.request('GET', `/v1/projects/${created[1]}`, { headers: platform });
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body.data).sort(), ['created_at', 'id', 'name']);
      assert.equal(response.body.data.id, created[1]);
      assert.equal(response.body.data.name, created[1]);
    });

    for (const id of ['no-such-project', 'NOT_AN_ID', 'x']) {
      it(`GET one of unknown "${id}" → 404 PROJECT_NOT_FOUND`, async () => {
        const response = await local.request('GET', `/v1/projects/${id}`, { headers: platform });
        assertError(response, 404, 'PROJECT_NOT_FOUND');
      });
    }
  });

  describe('DELETE /v1/projects/{id}', () => {
    it('→ 204; its APIs answer 404 PROJECT_NOT_FOUND and its file is removed', async () => {
      const project = await createProject(server, 'doomed');
      await putTable(server, project, 'notes', { columns: [{ name: 'text', type: 'text' }] });
      const row = await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: project.admin,
        body: { text: 'bye' },
      });
      assert.equal(row.status, 201);
      const storage = server.built.services.config;
      assert.ok(
        await projectStorageExists(storage, project.id),
        'the project storage (file or schema) exists before the delete',
      );

      const deleted = await server.request('DELETE', `/v1/projects/${project.id}`, { headers: platform });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assert.equal(
        await projectStorageExists(storage, project.id),
        false,
        'the project storage (file and WAL, or schema) is gone',
      );

      assertError(
        await server.request('GET', `/v1/projects/${project.id}`, { headers: platform }),
        404,
        'PROJECT_NOT_FOUND',
      );
      assertError(
        await server.request('GET', `/p/${project.id}/v1/tables`, { headers: project.admin }),
        404,
        'PROJECT_NOT_FOUND',
      );
      assertError(
        await server.request('GET', `/p/${project.id}/api/notes`, { headers: project.admin }),
        404,
        'PROJECT_NOT_FOUND',
      );
      assertError(
        await server.request('GET', `/p/${project.id}/api/notes/${row.body.data.id}`, { headers: project.anon }),
        404,
        'PROJECT_NOT_FOUND',
      );
      const list = await server.request('GET', '/v1/projects?limit=1000', { headers: platform });
      assert.ok(!list.body.data.some((p: { id: string }) => p.id === project.id), 'the deleted project is not listed');
    });

    it('the id can be reused after a delete, with an empty schema and new keys', async () => {
      const first = await createProject(server, 'reborn');
      await putTable(server, first, 'things', { columns: [{ name: 'n', type: 'integer' }] });
      assert.equal((await server.request('DELETE', '/v1/projects/reborn', { headers: platform })).status, 204);
      const second = await createProject(server, 'reborn');
      const tables = await server.request('GET', '/p/reborn/v1/tables', { headers: second.admin });
      assert.equal(tables.status, 200);
      assert.deepEqual(tables.body.data, []);
      assertError(
        await server.request('GET', '/p/reborn/v1/tables', { headers: first.admin }),
        401,
        'AUTH_INVALID_KEY',
      );
    });

    it('an unknown project → 404 PROJECT_NOT_FOUND', async () => {
      assertError(
        await server.request('DELETE', '/v1/projects/never-was', { headers: platform }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });

    it('deleting twice → 204 then 404 PROJECT_NOT_FOUND', async () => {
      await createProject(server, 'twice');
      assert.equal((await server.request('DELETE', '/v1/projects/twice', { headers: platform })).status, 204);
      assertError(
        await server.request('DELETE', '/v1/projects/twice', { headers: platform }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });
  });
});
