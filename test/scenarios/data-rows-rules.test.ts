/**
 * Who may call the data API (contract §4): the caller matrix on every route, table rules
 * evaluated for the pk_ key, and auth-table rows through /api/ with the admin key.
 * Bearer-token scenarios live with the auth scenarios.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const COLUMNS = [
  { name: 'title', type: 'text' },
  { name: 'done', type: 'boolean', default: false },
  { name: 'owner', type: 'text' },
];

describe('data API access', () => {
  let server: TestServer;
  let project: TestProject;
  let other: TestProject;
  const url = (table: string, path = '') => `/p/${project.id}/api/${table}${path}`;
  const asAdmin = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { headers: project.admin, ...(body !== undefined && { body }) });
  const asAnon = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { headers: project.anon, ...(body !== undefined && { body }) });
  const seed = async (table: string, rows: Record<string, unknown>[]) => {
    const response = await asAdmin('POST', url(table, '/bulk'), rows);
    assert.equal(response.status, 201, response.text);
    return response.body.data as { id: string; title: string; done: boolean }[];
  };

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'rules-main');
    other = await createProject(server, 'rules-other');
    await putTable(server, other, 'open', {
      columns: COLUMNS,
      rules: { list: '', view: '', create: '', update: '', delete: '' },
    });
  });
  after(() => server.close());

  describe('caller matrix on every route', () => {
    let rowId: string;
    before(async () => {
      await putTable(server, project, 'open', {
        columns: COLUMNS,
        rules: { list: '', view: '', create: '', update: '', delete: '' },
      });
      rowId = (await seed('open', [{ title: 'a' }]))[0]!.id;
    });
    const routes = (): [string, string, unknown?][] => [
      ['GET', url('open')],
      ['GET', url('open', `/${rowId}`)],
      ['POST', url('open'), { title: 'x' }],
      ['POST', url('open', '/bulk'), [{ title: 'x' }]],
      ['PATCH', url('open', `/${rowId}`), { title: 'y' }],
      ['DELETE', url('open', `/${rowId}`)],
    ];
    const callers = (): [string, Record<string, string>, string][] => [
      ['no credentials', {}, 'AUTH_REQUIRED'],
      ['a wrong pk_ key', { 'x-api-key': `pk_${'Z'.repeat(40)}` }, 'AUTH_INVALID_KEY'],
      ['a value that is no key at all', { 'x-api-key': 'hello' }, 'AUTH_INVALID_KEY'],
      ["another project's pk_ key", other.anon, 'AUTH_INVALID_KEY'],
      ["another project's sk_ key", other.admin, 'AUTH_INVALID_KEY'],
      ['the sk_ key sent as X-Api-Key', { 'x-api-key': project.adminKey }, 'AUTH_INVALID_KEY'],
      ['the pk_ key sent as X-Admin-Key', { 'x-admin-key': project.publishableKey }, 'AUTH_INVALID_KEY'],
      [
        'a good pk_ key with a wrong X-Admin-Key',
        { ...project.anon, 'x-admin-key': `sk_${'Z'.repeat(40)}` },
        'AUTH_INVALID_KEY',
      ],
    ];
    it('every route × refused caller → 401 with the right code, and nothing changed', async () => {
      for (const [method, path, body] of routes()) {
        for (const [label, headers, code] of callers()) {
          const response = await server.request(method, path, { headers, ...(body !== undefined && { body }) });
          assert.equal(response.status, 401, `${method} ${path} with ${label}: ${response.text}`);
          assertError(response, 401, code);
        }
      }
      const list = await asAdmin('GET', url('open'));
      assert.deepEqual(
        list.body.data.map((r: { id: string; title: string }) => [r.id, r.title]),
        [[rowId, 'a']],
      );
    });
    it('credentials are checked before the table: an unknown table without a key → 401 AUTH_REQUIRED', async () => {
      assertError(await server.request('GET', url('secret_table_name')), 401, 'AUTH_REQUIRED');
    });
    it('an unknown project → 404 PROJECT_NOT_FOUND', async () => {
      assertError(
        await server.request('GET', '/p/no-such-project/api/open', { headers: project.anon }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });
    it('the pk_ key and the admin key both pass an open rule on every route', async () => {
      for (const call of [asAnon, asAdmin]) {
        const created = await call('POST', url('open'), { title: 'mine' });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id;
        assert.equal((await call('GET', url('open'))).status, 200);
        assert.equal((await call('GET', url('open', `/${id}`))).status, 200);
        assert.equal((await call('PATCH', url('open', `/${id}`), { done: true })).status, 200);
        assert.equal((await call('POST', url('open', '/bulk'), [{ title: 'b' }])).status, 201);
        assert.equal((await call('DELETE', url('open', `/${id}`))).status, 204);
      }
    });
  });

  describe('rules with the pk_ key', () => {
    let rows: { id: string; title: string; done: boolean }[];
    before(async () => {
      await putTable(server, project, 'locked', { columns: COLUMNS });
      await putTable(server, project, 'hidden', {
        columns: COLUMNS,
        rules: {
          list: 'done = false',
          view: 'done = false',
          create: 'title != "forbidden" && @request.body.done != true',
          update: 'done = false',
          delete: 'done = false',
        },
      });
      await seed('locked', [{ title: 'l' }]);
      rows = await seed('hidden', [
        { title: 'open 1' },
        { title: 'closed 1', done: true },
        { title: 'open 2' },
        { title: 'closed 2', done: true },
        { title: 'open 3', owner: '' },
      ]);
    });

    it('a locked (null) rule refuses every operation → 403 FORBIDDEN', async () => {
      const id = (await asAdmin('GET', url('locked'))).body.data[0].id;
      const calls: [string, string, unknown?][] = [
        ['GET', url('locked')],
        ['GET', url('locked', `/${id}`)],
        ['POST', url('locked'), { title: 'x' }],
        ['POST', url('locked', '/bulk'), [{ title: 'x' }]],
        ['PATCH', url('locked', `/${id}`), { title: 'x' }],
        ['DELETE', url('locked', `/${id}`)],
      ];
      for (const [method, path, body] of calls) {
        const response = await asAnon(method, path, body);
        assertError(response, 403, 'FORBIDDEN');
      }
      const list = await asAdmin('GET', url('locked'));
      assert.deepEqual(
        list.body.data.map((r: { title: string }) => r.title),
        ['l'],
        'the admin key sees the untouched row',
      );
    });

    it('list: rows outside the rule are invisible and not counted', async () => {
      const response = await asAnon('GET', url('hidden'));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((r: { title: string }) => r.title),
        ['open 1', 'open 2', 'open 3'],
      );
      assert.equal(response.body.meta.total, 3);
    });
    it('list: the caller filter is ANDed with the rule (asking for hidden rows finds none)', async () => {
      const response = await asAnon(
        'GET',
        `${url('hidden')}?filter=${encodeURIComponent('done = true || title ~ "1"')}`,
      );
      assert.deepEqual(
        response.body.data.map((r: { title: string }) => r.title),
        ['open 1'],
      );
      assert.equal(response.body.meta.total, 1);
      const shorthand = await asAnon('GET', `${url('hidden')}?done=is.true`);
      assert.equal(shorthand.body.meta.total, 0);
    });
    it('list: the admin key sees every row', async () => {
      assert.equal((await asAdmin('GET', url('hidden'))).body.meta.total, 5);
    });
    it('view of a row outside the rule → 404 ROW_NOT_FOUND; inside → 200', async () => {
      assertError(await asAnon('GET', url('hidden', `/${rows[1]!.id}`)), 404, 'ROW_NOT_FOUND');
      assert.equal((await asAnon('GET', url('hidden', `/${rows[0]!.id}`))).status, 200);
      assert.equal((await asAdmin('GET', url('hidden', `/${rows[1]!.id}`))).status, 200);
    });
    it('update of a row outside the rule → 404 ROW_NOT_FOUND and the row is unchanged', async () => {
      assertError(await asAnon('PATCH', url('hidden', `/${rows[3]!.id}`), { title: 'hacked' }), 404, 'ROW_NOT_FOUND');
      assert.equal((await asAdmin('GET', url('hidden', `/${rows[3]!.id}`))).body.data.title, 'closed 2');
    });
    it('update inside the rule → 200', async () => {
      const response = await asAnon('PATCH', url('hidden', `/${rows[2]!.id}`), { title: 'open 2b' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.title, 'open 2b');
    });
    it('delete of a row outside the rule → 404 ROW_NOT_FOUND and the row stays', async () => {
      assertError(await asAnon('DELETE', url('hidden', `/${rows[1]!.id}`)), 404, 'ROW_NOT_FOUND');
      assert.equal((await asAdmin('GET', url('hidden', `/${rows[1]!.id}`))).status, 200);
    });
    it('create whose row fails the rule → 403 FORBIDDEN and nothing written', async () => {
      const before = (await asAdmin('GET', url('hidden'))).body.meta.total;
      assertError(await asAnon('POST', url('hidden'), { title: 'forbidden' }), 403, 'FORBIDDEN');
      assertError(await asAnon('POST', url('hidden'), { title: 'fine', done: true }), 403, 'FORBIDDEN');
      const bulk = await asAnon('POST', url('hidden', '/bulk'), [
        { title: 'fine 1' },
        { title: 'fine 2' },
        { title: 'forbidden' },
      ]);
      assertError(bulk, 403, 'FORBIDDEN');
      assertMessageIncludes(bulk, 'row 2');
      assert.equal((await asAdmin('GET', url('hidden'))).body.meta.total, before);
    });
    it('create inside the rule → 201; the admin key is not bound by the rule', async () => {
      assert.equal((await asAnon('POST', url('hidden'), { title: 'allowed' })).status, 201);
      assert.equal((await asAdmin('POST', url('hidden'), { title: 'forbidden' })).status, 201);
    });

    it('@request.auth.id is "" for the pk_ key', async () => {
      await putTable(server, project, 'owned', {
        columns: COLUMNS,
        rules: { list: 'owner = @request.auth.id', view: '@request.auth.id != ""' },
      });
      const [, anonymous] = await seed('owned', [
        { title: 'u1', owner: 'user-1' },
        { title: 'nobody', owner: '' },
      ]);
      const list = await asAnon('GET', url('owned'));
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.data.map((r: { title: string }) => r.title),
        ['nobody'],
      );
      assertError(await asAnon('GET', url('owned', `/${anonymous!.id}`)), 404, 'ROW_NOT_FOUND');
    });
  });

  describe('auth-table rows with the admin key', () => {
    const users = (path = '') => url('members', path);
    let created: Record<string, unknown>;
    before(async () => {
      await putTable(server, project, 'members', {
        auth_table: true,
        columns: [{ name: 'display_name', type: 'text' }],
      });
    });

    it('POST → 201; email lower-cased, email_verified false, no password in the answer', async () => {
      const response = await asAdmin('POST', users(), {
        email: 'Mixed.Case@Example.COM',
        password: 'correct horse battery',
        display_name: 'Ann',
      });
      assert.equal(response.status, 201, response.text);
      created = response.body.data;
      assert.equal(created.email, 'mixed.case@example.com');
      assert.equal(created.email_verified, false);
      assert.deepEqual(Object.keys(created).sort(), [
        'created_at',
        'display_name',
        'email',
        'email_verified',
        'id',
        'updated_at',
      ]);
      assert.doesNotMatch(response.text, /password|argon2|correct horse/);
    });
    it('GET one, list and PATCH never return the password or its hash', async () => {
      for (const response of [
        await asAdmin('GET', users(`/${created.id}`)),
        await asAdmin('GET', users()),
        await asAdmin('PATCH', users(`/${created.id}`), { display_name: 'Anne' }),
      ]) {
        assert.equal(response.status, 200, response.text);
        assert.doesNotMatch(response.text, /password|argon2|correct horse/);
      }
    });
    it('the same email in another case → 409 CONFLICT_UNIQUE', async () => {
      const response = await asAdmin('POST', users(), {
        email: 'MIXED.case@example.com',
        password: 'another password',
      });
      assertError(response, 409, 'CONFLICT_UNIQUE');
    });
    it('an email set by PATCH is lower-cased', async () => {
      const response = await asAdmin('PATCH', users(`/${created.id}`), { email: 'New.Address@Example.com' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.email, 'new.address@example.com');
      assert.equal((await asAdmin('GET', `${users()}?email=eq.new.address@example.com`)).body.meta.total, 1);
    });
    const refusedQueries: [string, string][] = [
      ['filter on password', `filter=${encodeURIComponent('password != ""')}`],
      ['sort by password', 'sort=password'],
      ['select password', 'select=email,password'],
      ['shorthand on password', 'password=like.*'],
      ['filter on password_version', `filter=${encodeURIComponent('password_version > 0')}`],
    ];
    for (const [label, query] of refusedQueries) {
      it(`${label} → 400 VALIDATION_FILTER`, async () => {
        assertError(await asAdmin('GET', `${users()}?${query}`), 400, 'VALIDATION_FILTER');
      });
    }
    const refusedBodies: [string, Record<string, unknown>, string][] = [
      ['a password too short', { email: 'short@example.com', password: 'short' }, 'VALIDATION_PASSWORD'],
      ['a password too long', { email: 'long@example.com', password: 'x'.repeat(257) }, 'VALIDATION_PASSWORD'],
      ['no password', { email: 'none@example.com' }, 'VALIDATION_FAILED'],
      ['no email', { password: 'long enough password' }, 'VALIDATION_FAILED'],
      ['an invalid email', { email: 'not-an-email', password: 'long enough password' }, 'VALIDATION_FAILED'],
    ];
    for (const [label, body, code] of refusedBodies) {
      it(`POST with ${label} → 400 ${code}`, async () => {
        assertError(await asAdmin('POST', users(), body), 400, code);
      });
    }
    it('the pk_ key cannot create users through /api/ → 403 FORBIDDEN', async () => {
      assertError(
        await asAnon('POST', users(), { email: 'anon@example.com', password: 'long enough password' }),
        403,
        'FORBIDDEN',
      );
    });
    it('the pk_ key: list is locked (403), view of a user is outside the default rule (404)', async () => {
      assertError(await asAnon('GET', users()), 403, 'FORBIDDEN');
      assertError(await asAnon('GET', users(`/${created.id}`)), 404, 'ROW_NOT_FOUND');
    });
  });
});
