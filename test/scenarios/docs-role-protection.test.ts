import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp, type SignedUp } from '../helpers/auth-fixtures.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// The auth table of docs/auth.md "Setting up", verbatim: users may not choose their role,
// neither at signup nor by editing their own row later. The rules use the presence test
// `!@request.body.role:isset` (docs/rules.md "Protected columns"): the old advice,
// `@request.body.role = null`, let a body sending "role": null through, which wiped the role.
const DOCS_RULES = {
  create: '!@request.body.role:isset',
  update: 'id = @request.auth.id && !@request.body.role:isset',
};

let server: TestServer;
let project: TestProject;
before(async () => {
  server = await startTestServer();
  project = await createAuthProject(server, {
    columns: [
      { name: 'display_name', type: 'text', max_length: 80 },
      { name: 'role', type: 'text', default: 'member' },
    ],
    rules: DOCS_RULES,
  });
  // The same protection on an ordinary table (docs/rules.md): a post's status is the admin's.
  await putTable(server, project, 'posts', {
    columns: [
      { name: 'title', type: 'text' },
      { name: 'owner', type: 'text' },
      { name: 'status', type: 'text', default: 'draft' },
    ],
    rules: {
      list: 'owner = @request.auth.id',
      view: 'owner = @request.auth.id',
      create: 'owner = @request.auth.id && !@request.body.status:isset',
      update: 'owner = @request.auth.id && !@request.body.status:isset',
    },
  });
});
after(() => server.close());

const userPath = (user: SignedUp) => `/p/${project.id}/api/users/${user.user.id}`;
const me = async (user: SignedUp) =>
  (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(user.token) })).body.user;

describe('docs/auth.md: a role column protected by the create and update rules', () => {
  it('PATCH with role: null cannot wipe a protected role → 404 ROW_NOT_FOUND, role stays member', async () => {
    const user = await signUp(server, project, 'wiper@example.com');
    assert.equal(user.user.role, 'member');
    const patch = await server.request('PATCH', userPath(user), { headers: bearer(user.token), body: { role: null } });
    assertError(patch, 404, 'ROW_NOT_FOUND');
    assert.equal((await me(user)).role, 'member');
  });

  it('a member PATCHing their own role → 404 ROW_NOT_FOUND and the role stays member', async () => {
    const user = await signUp(server, project, 'mallory@example.com');
    const patch = await server.request('PATCH', userPath(user), {
      headers: bearer(user.token),
      body: { role: 'editor' },
    });
    assertError(patch, 404, 'ROW_NOT_FOUND');
    assert.equal((await me(user)).role, 'member');
  });

  it('a member may still change their other columns (role not sent) → 200', async () => {
    const user = await signUp(server, project, 'ada@example.com');
    const patch = await server.request('PATCH', userPath(user), {
      headers: bearer(user.token),
      body: { display_name: 'Ada' },
    });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.data.display_name, 'Ada');
    assert.equal(patch.body.data.role, 'member');
  });

  const signups: [string, Record<string, unknown>][] = [
    ['signup choosing a role', { role: 'editor' }],
    ['signup sending role: null (which would clear the default)', { role: null }],
  ];
  for (const [name, extra] of signups) {
    it(`${name} → 403 FORBIDDEN, no user created`, async () => {
      const email = `signup-${Object.values(extra)[0] ?? 'null'}@example.com`;
      const response = await server.request('POST', `/p/${project.id}/auth/signup`, {
        body: { email, password: 'correct horse battery', ...extra },
      });
      assertError(response, 403, 'FORBIDDEN');
      const users = await server.request(
        'GET',
        `/p/${project.id}/api/users?filter=${encodeURIComponent(`email = "${email}"`)}`,
        { headers: project.admin },
      );
      assert.equal(users.body.meta.total, 0);
    });
  }

  it('signup without a role → 201 with the default role', async () => {
    const user = await signUp(server, project, 'plain@example.com', { display_name: 'Plain' });
    assert.equal(user.user.role, 'member');
  });

  it('the admin key may still set a role (rules do not apply to it) → 200', async () => {
    const user = await signUp(server, project, 'promoted@example.com');
    const patch = await server.request('PATCH', userPath(user), { headers: project.admin, body: { role: 'editor' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.data.role, 'editor');
  });
});

describe('docs/rules.md: !@request.body.status:isset on an ordinary table, create, bulk and update', () => {
  let owner: SignedUp;
  const posts = (path = '') => `/p/${project.id}/api/posts${path}`;
  const countPosts = async (): Promise<number> =>
    (await server.request('GET', posts(), { headers: bearer(owner.token) })).body.meta.total;
  before(async () => {
    owner = await signUp(server, project, 'poster@example.com');
  });

  const refused: [string, string, unknown][] = [
    ['create sending a status', '', { title: 't', status: 'published' }],
    ['create sending status: null', '', { title: 't', status: null }],
    ['bulk create where one row sends status: null', '/bulk', 'bulk-null'],
    ['bulk create where one row sends a status', '/bulk', 'bulk-value'],
  ];
  for (const [name, path, body] of refused) {
    it(`${name} → 403 FORBIDDEN, nothing written`, async () => {
      const before = await countPosts();
      const own = (extra: Record<string, unknown> = {}) => ({ title: 'row', owner: owner.user.id, ...extra });
      const payload =
        body === 'bulk-null'
          ? [own(), own({ status: null })]
          : body === 'bulk-value'
            ? [own(), own({ status: 'published' })]
            : { ...(body as object), owner: owner.user.id };
      const response = await server.request('POST', posts(path), { headers: bearer(owner.token), body: payload });
      assertError(response, 403, 'FORBIDDEN');
      assert.equal(await countPosts(), before);
    });
  }

  it('create and bulk create without status → 201 with the default status', async () => {
    const one = await server.request('POST', posts(), {
      headers: bearer(owner.token),
      body: { title: 'one', owner: owner.user.id },
    });
    assert.equal(one.status, 201, one.text);
    assert.equal(one.body.data.status, 'draft');
    const bulk = await server.request('POST', posts('/bulk'), {
      headers: bearer(owner.token),
      body: [
        { title: 'a', owner: owner.user.id },
        { title: 'b', owner: owner.user.id },
      ],
    });
    assert.equal(bulk.status, 201, bulk.text);
    assert.deepEqual(
      bulk.body.data.map((row: { status: string }) => row.status),
      ['draft', 'draft'],
    );
  });

  const updates: [string, Record<string, unknown>, number][] = [
    ['update not sending status', { title: 'renamed' }, 200],
    ['update sending a status', { status: 'published' }, 404],
    ['update sending status: null', { status: null }, 404],
  ];
  for (const [name, patch, status] of updates) {
    it(`${name} → ${status}; status stays draft`, async () => {
      const created = await server.request('POST', posts(), {
        headers: bearer(owner.token),
        body: { title: 'x', owner: owner.user.id },
      });
      const response = await server.request('PATCH', posts(`/${created.body.data.id}`), {
        headers: bearer(owner.token),
        body: patch,
      });
      if (status === 404) assertError(response, 404, 'ROW_NOT_FOUND');
      else assert.equal(response.status, 200, response.text);
      const row = await server.request('GET', posts(`/${created.body.data.id}`), { headers: bearer(owner.token) });
      assert.equal(row.body.data.status, 'draft');
    });
  }
});

describe('the schema API refuses :isset where it means nothing', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'in a list rule (no body there)',
      { list: '!@request.body.status:isset' },
      /rules\.list: @request\.body\.status:isset is not available here at character 2/,
    ],
    [
      'on an auth field',
      { update: '!@request.auth.role:isset' },
      /rules\.update: :isset applies only to @request\.body\.<field>.* at character 20/,
    ],
    [
      'on a misspelt column (it would protect nothing)',
      { update: '!@request.body.statu:isset' },
      /rules\.update: unknown column "statu" in @request\.body\.statu:isset at character 2/,
    ],
    [
      'compared like a value',
      { create: '@request.body.status:isset = false' },
      /rules\.create: .* is a test on its own/,
    ],
  ];
  for (const [name, rules, message] of cases) {
    it(`${name} → 400 VALIDATION_FAILED with the position`, async () => {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/shaky`, {
        headers: project.admin,
        body: { columns: [{ name: 'status', type: 'text' }], rules },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.match(response.body.error.message, message);
    });
  }
});
