/**
 * The schema API (contract §2): caller matrix, PUT/GET/DELETE of tables, column types and
 * options, names and rules. Auth tables are in admin-tables-auth.test.ts; migrations of
 * existing tables, references and indexes in admin-tables-changes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const ALL_TYPES = {
  columns: [
    { name: 'title', type: 'text', required: true, max_length: 200 },
    { name: 'status', type: 'text', enum: ['open', 'done'], default: 'open' },
    { name: 'code', type: 'text', unique: true },
    { name: 'count', type: 'integer', min: 0, max: 10, default: 1 },
    { name: 'score', type: 'number', min: -1.5, max: 99.5 },
    { name: 'done', type: 'boolean', default: false },
    { name: 'due', type: 'timestamp', default: '2026-01-31T09:30:00+01:00' },
    { name: 'meta', type: 'json', default: { tags: ['a'] } },
  ],
  rules: { list: '', view: 'done = false', create: null, update: 'count > 0', delete: null },
  indexes: [['status', 'due'], ['score']],
};

describe('schema API /p/{id}/v1/tables', () => {
  let server: TestServer;
  let project: TestProject;
  let other: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'schema-main');
    other = await createProject(server, 'schema-other');
    await putTable(server, project, 'existing', { columns: [{ name: 'n', type: 'integer' }] });
  });
  after(() => server.close());

  describe('caller matrix', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/v1/tables'],
      ['PUT', '/v1/tables/fresh', { columns: [] }],
      ['GET', '/v1/tables/existing'],
      ['DELETE', '/v1/tables/existing'],
    ];
    for (const [method, route, body] of routes) {
      const send = (projectId: string, headers: Record<string, string>) =>
        server.request(method, `/p/${projectId}${route}`, { headers, ...(body !== undefined && { body }) });
      it(`${method} ${route}: no key → 401 AUTH_REQUIRED`, async () => {
        assertError(await send(project.id, {}), 401, 'AUTH_REQUIRED');
      });
      it(`${method} ${route}: only the pk_ key (X-Api-Key) → 401 AUTH_REQUIRED`, async () => {
        assertError(await send(project.id, project.anon), 401, 'AUTH_REQUIRED');
      });
      it(`${method} ${route}: the pk_ key as X-Admin-Key → 401 AUTH_INVALID_KEY`, async () => {
        assertError(await send(project.id, { 'x-admin-key': project.publishableKey }), 401, 'AUTH_INVALID_KEY');
      });
      it(`${method} ${route}: another project's sk_ key → 401 AUTH_INVALID_KEY`, async () => {
        assertError(await send(project.id, other.admin), 401, 'AUTH_INVALID_KEY');
      });
      it(`${method} ${route}: a made-up sk_ key → 401 AUTH_INVALID_KEY`, async () => {
        assertError(await send(project.id, { 'x-admin-key': `sk_${'A'.repeat(40)}` }), 401, 'AUTH_INVALID_KEY');
      });
      it(`${method} ${route}: unknown project → 404 PROJECT_NOT_FOUND`, async () => {
        assertError(await send('no-such-project', project.admin), 404, 'PROJECT_NOT_FOUND');
      });
    }
    it('the table survived every refused DELETE', async () => {
      assert.equal(
        (await server.request('GET', `/p/${project.id}/v1/tables/existing`, { headers: project.admin })).status,
        200,
      );
      assertError(
        await server.request('GET', `/p/${project.id}/v1/tables/fresh`, { headers: project.admin }),
        404,
        'TABLE_NOT_FOUND',
      );
    });
  });

  describe('PUT, GET, DELETE', () => {
    it('PUT creates (201), the same PUT again changes nothing (200), GET returns it', async () => {
      const url = `/p/${project.id}/v1/tables/everything`;
      const created = await server.request('PUT', url, { headers: project.admin, body: ALL_TYPES });
      assert.equal(created.status, 201, created.text);
      const again = await server.request('PUT', url, { headers: project.admin, body: ALL_TYPES });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, created.body);
      const fetched = await server.request('GET', url, { headers: project.admin });
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, created.body);

      const table = fetched.body.data;
      assert.equal(table.name, 'everything');
      assert.equal(table.auth_table, false);
      assert.equal(table.verify_email, false);
      assert.deepEqual(table.rules, ALL_TYPES.rules);
      assert.deepEqual(table.indexes, ALL_TYPES.indexes);
      const byName = Object.fromEntries(table.columns.map((c: { name: string }) => [c.name, c]));
      assert.deepEqual(
        Object.keys(byName),
        ALL_TYPES.columns.map((c) => c.name),
      );
      assert.equal(byName.title.required, true);
      assert.equal(byName.title.max_length, 200);
      assert.equal(byName.code.unique, true);
      assert.equal(byName.done.required, false);
      assert.deepEqual(byName.status.enum, ['open', 'done']);
      assert.equal(byName.count.min, 0);
      assert.equal(byName.score.max, 99.5);
      assert.deepEqual(byName.meta.default, { tags: ['a'] });
      assert.equal(byName.due.default, '2026-01-31T08:30:00.000Z', 'timestamp defaults are stored in UTC');
    });

    it('defaults are applied to new rows', async () => {
      const row = await server.request('POST', `/p/${project.id}/api/everything`, {
        headers: project.admin,
        body: { title: 't' },
      });
      assert.equal(row.status, 201, row.text);
      assert.equal(row.body.data.status, 'open');
      assert.equal(row.body.data.count, 1);
      assert.equal(row.body.data.done, false);
      assert.equal(row.body.data.due, '2026-01-31T08:30:00.000Z');
      assert.deepEqual(row.body.data.meta, { tags: ['a'] });
      assert.equal(row.body.data.score, null);
    });

    it('a new table gets null rules for every operation', async () => {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/plain`, {
        headers: project.admin,
        body: { columns: [{ name: 'a', type: 'text' }] },
      });
      assert.equal(response.status, 201);
      assert.deepEqual(response.body.data.rules, { list: null, view: null, create: null, update: null, delete: null });
      assert.deepEqual(response.body.data.indexes, []);
    });

    it('GET lists every table of the project, not those of other projects', async () => {
      await putTable(server, other, 'only_other', { columns: [] });
      const response = await server.request('GET', `/p/${project.id}/v1/tables`, { headers: project.admin });
      assert.equal(response.status, 200);
      const names = response.body.data.map((t: { name: string }) => t.name);
      for (const name of ['existing', 'everything', 'plain']) assert.ok(names.includes(name), `${name} listed`);
      assert.ok(!names.includes('only_other'), 'tables of other projects are not listed');
      for (const table of response.body.data)
        assert.ok(Array.isArray(table.columns) && typeof table.rules === 'object', JSON.stringify(table));
    });

    it('DELETE → 204, then GET, DELETE and the data API → 404 TABLE_NOT_FOUND', async () => {
      await putTable(server, project, 'temp', { columns: [{ name: 'x', type: 'text' }], rules: { list: '' } });
      const url = `/p/${project.id}/v1/tables/temp`;
      const deleted = await server.request('DELETE', url, { headers: project.admin });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assertError(await server.request('GET', url, { headers: project.admin }), 404, 'TABLE_NOT_FOUND');
      assertError(await server.request('DELETE', url, { headers: project.admin }), 404, 'TABLE_NOT_FOUND');
      assertError(
        await server.request('GET', `/p/${project.id}/api/temp`, { headers: project.anon }),
        404,
        'TABLE_NOT_FOUND',
      );
    });

    it('a table re-created after DELETE starts empty', async () => {
      const def = { columns: [{ name: 'x', type: 'text' }] };
      await putTable(server, project, 'again', def);
      await server.request('POST', `/p/${project.id}/api/again`, { headers: project.admin, body: { x: 'old' } });
      await server.request('DELETE', `/p/${project.id}/v1/tables/again`, { headers: project.admin });
      await putTable(server, project, 'again', def);
      const list = await server.request('GET', `/p/${project.id}/api/again`, { headers: project.admin });
      assert.equal(list.body.meta.total, 0);
    });
  });

  describe('definitions that are refused → 400 VALIDATION_FAILED', () => {
    const col = (extra: Record<string, unknown>) => ({ columns: [{ name: 'c', ...extra }] });
    const cases: [string, unknown, string?][] = [
      ['body not an object', [1, 2]],
      ['unknown top-level field', { columns: [], colums: [] }, 'colums'],
      ['columns not an array', { columns: { a: 'text' } }],
      ['unknown type', col({ type: 'varchar' }), 'c'],
      ['type missing', col({}), 'c'],
      ['unknown column option', col({ type: 'text', nullable: true }), 'nullable'],
      ['required not a boolean', col({ type: 'text', required: 'yes' }), 'c'],
      ['max_length on an integer', col({ type: 'integer', max_length: 3 }), 'c'],
      ['max_length zero', col({ type: 'text', max_length: 0 }), 'c'],
      ['enum on a number', col({ type: 'number', enum: ['1'] }), 'c'],
      ['enum empty', col({ type: 'text', enum: [] }), 'c'],
      ['enum of numbers', col({ type: 'text', enum: [1, 2] }), 'c'],
      ['min on text', col({ type: 'text', min: 1 }), 'c'],
      ['min greater than max', col({ type: 'integer', min: 5, max: 1 }), 'c'],
      ['unique json', col({ type: 'json', unique: true }), 'c'],
      ['default of the wrong type', col({ type: 'integer', default: 'one' }), 'c'],
      ['default outside the enum', col({ type: 'text', enum: ['a'], default: 'b' }), 'c'],
      ['default above max', col({ type: 'integer', max: 3, default: 4 }), 'c'],
      ['default not a timestamp', col({ type: 'timestamp', default: 'tomorrow' }), 'c'],
      [
        'references an unknown table',
        col({ type: 'text', references: { table: 'nowhere', on_delete: 'cascade' } }),
        'nowhere',
      ],
      [
        'references with a bad on_delete',
        col({ type: 'text', references: { table: 'existing', on_delete: 'explode' } }),
        'c',
      ],
      ['references from an integer column', col({ type: 'integer', references: { table: 'existing' } }), 'c'],
      [
        'set_null on a required column',
        col({ type: 'text', required: true, references: { table: 'existing', on_delete: 'set_null' } }),
        'c',
      ],
      [
        'a column declared twice',
        {
          columns: [
            { name: 'a', type: 'text' },
            { name: 'a', type: 'integer' },
          ],
        },
        'a',
      ],
      ['verify_email without auth_table', { columns: [], verify_email: true }],
      ['auth_table not a boolean', { columns: [], auth_table: 'yes' }],
      ['an index on an unknown column', { columns: [{ name: 'a', type: 'text' }], indexes: [['b']] }, 'b'],
      ['an empty index', { columns: [{ name: 'a', type: 'text' }], indexes: [[]] }],
      ['rules not an object', { columns: [], rules: '' }],
      ['a rule for an unknown operation', { columns: [], rules: { read: '' } }, 'read'],
      ['a rule that is a number', { columns: [], rules: { list: 1 } }, 'list'],
      [
        'a rule naming an unknown column',
        { columns: [{ name: 'done', type: 'boolean' }], rules: { list: 'dnoe = true' } },
        'dnoe',
      ],
      [
        'a rule with a syntax error',
        { columns: [{ name: 'done', type: 'boolean' }], rules: { view: 'done = = true' } },
        'rules.view',
      ],
      [
        'a rule naming an unknown auth field',
        { columns: [{ name: 'owner', type: 'text' }], rules: { list: 'owner = @request.auth.nope' } },
        'nope',
      ],
      [
        '@request.body in a list rule',
        { columns: [{ name: 'owner', type: 'text' }], rules: { list: 'owner = @request.body.owner' } },
        'rules.list',
      ],
    ];
    for (const [label, body, fragment] of cases) {
      it(label, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/refused`, {
          headers: project.admin,
          body,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
        if (fragment) assertMessageIncludes(response, fragment);
      });
    }
    it('nothing was created by the refused PUTs', async () => {
      assertError(
        await server.request('GET', `/p/${project.id}/v1/tables/refused`, { headers: project.admin }),
        404,
        'TABLE_NOT_FOUND',
      );
    });
  });

  describe('names', () => {
    for (const name of ['id', 'created_at', 'updated_at']) {
      it(`column "${name}" is reserved → 400 VALIDATION_FAILED`, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/reserved`, {
          headers: project.admin,
          body: { columns: [{ name, type: 'text' }] },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
        assertMessageIncludes(response, name);
      });
    }
    for (const name of ['email', 'password', 'email_verified']) {
      it(`column "${name}" is reserved in an auth table → 400 VALIDATION_FAILED`, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/people`, {
          headers: project.admin,
          body: { auth_table: true, columns: [{ name, type: 'text' }] },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
        assertMessageIncludes(response, name);
      });
      it(`column "${name}" is allowed in a plain table`, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/plain_${name}`, {
          headers: project.admin,
          body: { columns: [{ name, type: 'text' }] },
        });
        assert.equal(response.status, 201, response.text);
      });
    }
    for (const name of ['Title', '1abc', 'a-b', '_x', 'a b', '', 'é', `a${'b'.repeat(63)}`]) {
      it(`column name ${JSON.stringify(name)} → 400 VALIDATION_FAILED`, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/badcol`, {
          headers: project.admin,
          body: { columns: [{ name, type: 'text' }] },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      });
    }
    it('a 63-character column name is accepted', async () => {
      const name = `a${'b'.repeat(62)}`;
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/longcol`, {
        headers: project.admin,
        body: { columns: [{ name, type: 'text' }] },
      });
      assert.equal(response.status, 201, response.text);
    });
    for (const name of ['Tasks', '9lives', 'my-table', '_rb_tables', 'sqlite_master', `t${'x'.repeat(63)}`]) {
      it(`table name ${JSON.stringify(name)} → 400 VALIDATION_FAILED`, async () => {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/${encodeURIComponent(name)}`, {
          headers: project.admin,
          body: { columns: [] },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      });
    }
    it('SQL keywords are fine as names (quoted identifiers)', async () => {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/select`, {
        headers: project.admin,
        body: {
          columns: [
            { name: 'from', type: 'text' },
            { name: 'where', type: 'integer' },
            { name: 'order', type: 'boolean' },
          ],
        },
      });
      assert.equal(response.status, 201, response.text);
      const row = await server.request('POST', `/p/${project.id}/api/select`, {
        headers: project.admin,
        body: { from: 'a', where: 1, order: true },
      });
      assert.equal(row.status, 201, row.text);
      const list = await server.request(
        'GET',
        `/p/${project.id}/api/select?filter=${encodeURIComponent('where = 1 && order = true')}&sort=-from`,
        { headers: project.admin },
      );
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.meta.total, 1);
    });
  });
});
