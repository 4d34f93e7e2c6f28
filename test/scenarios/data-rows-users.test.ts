/**
 * Scenarios for end users on the data API (contract §4): bearer tokens set @request.auth
 * for rules, @request.body in create and update rules, and the auth-table fields only the
 * auth endpoints (or the admin key) may write. Caller matrix: owner, other user,
 * anonymous pk_ key, admin key, logged-out token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp, type SignedUp } from '../helpers/auth-fixtures.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let ada: SignedUp;
let bob: SignedUp;
let adaNote: string;

before(async () => {
  server = await startTestServer();
  project = await createAuthProject(server, {
    columns: [
      { name: 'name', type: 'text' },
      { name: 'role', type: 'text', default: 'member' },
    ],
    rules: { create: '@request.body.role = null' },
  });
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
    ],
    rules: {
      list: 'owner = @request.auth.id',
      view: 'owner = @request.auth.id',
      // Signed-in users only, and only notes they own.
      create: "@request.auth.id != '' && @request.body.owner = @request.auth.id",
      // Owners may edit, but never hand a note to someone else.
      update: 'owner = @request.auth.id && (@request.body.owner = null || @request.body.owner = @request.auth.id)',
      delete: 'owner = @request.auth.id',
    },
  });
  await putTable(server, project, 'announcements', {
    columns: [{ name: 'text', type: 'text' }],
    rules: { list: '', create: "@request.auth.role = 'staff'" },
  });
  ada = await signUp(server, project, 'ada@example.com', { name: 'Ada' });
  bob = await signUp(server, project, 'bob@example.com', { name: 'Bob' });
});
after(() => server.close());

const api = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  server.request(method, `/p/${project.id}/api/${path}`, { headers, ...(body !== undefined && { body }) });

describe('a table with owner rules', () => {
  it('the owner creates a note of their own → 201', async () => {
    const response = await api('POST', 'notes', bearer(ada.token), { title: 'ada 1', owner: ada.user.id });
    assert.equal(response.status, 201, response.text);
    adaNote = response.body.data.id;
  });

  const refusedCreates: [string, () => Record<string, string>, () => unknown][] = [
    [
      'a note owned by someone else → 403 FORBIDDEN',
      () => bearer(ada.token),
      () => ({ title: 'forged', owner: bob.user.id }),
    ],
    ['a note without an owner → 403 FORBIDDEN', () => bearer(ada.token), () => ({ title: 'orphan' })],
    ['anonymous (pk_ key) → 403 FORBIDDEN', () => project.anon, () => ({ title: 'anon' })],
  ];
  for (const [name, headers, body] of refusedCreates) {
    it(`create: ${name}`, async () => {
      assertError(await api('POST', 'notes', headers(), body()), 403, 'FORBIDDEN');
    });
  }

  it('list: each caller sees only their rows, and total counts only those', async () => {
    await api('POST', 'notes', bearer(bob.token), { title: 'bob 1', owner: bob.user.id });
    const adaList = await api('GET', 'notes', bearer(ada.token));
    assert.deepEqual(
      adaList.body.data.map((n: { title: string }) => n.title),
      ['ada 1'],
    );
    assert.equal(adaList.body.meta.total, 1);
    const bobList = await api('GET', 'notes', bearer(bob.token));
    assert.deepEqual(
      bobList.body.data.map((n: { title: string }) => n.title),
      ['bob 1'],
    );
    const anonList = await api('GET', 'notes', project.anon);
    assert.equal(anonList.body.meta.total, 0);
    const adminList = await api('GET', 'notes', project.admin);
    assert.equal(adminList.body.meta.total, 2);
  });

  it("another user's row is invisible: view, update, delete → 404 ROW_NOT_FOUND", async () => {
    assertError(await api('GET', `notes/${adaNote}`, bearer(bob.token)), 404, 'ROW_NOT_FOUND');
    assertError(await api('PATCH', `notes/${adaNote}`, bearer(bob.token), { title: 'hijacked' }), 404, 'ROW_NOT_FOUND');
    assertError(await api('DELETE', `notes/${adaNote}`, bearer(bob.token)), 404, 'ROW_NOT_FOUND');
    assert.equal((await api('GET', `notes/${adaNote}`, bearer(ada.token))).body.data.title, 'ada 1');
  });

  it('@request.body in the update rule: the owner may edit but not give the note away', async () => {
    const edit = await api('PATCH', `notes/${adaNote}`, bearer(ada.token), { title: 'ada 1 edited' });
    assert.equal(edit.status, 200, edit.text);
    assertError(
      await api('PATCH', `notes/${adaNote}`, bearer(ada.token), { owner: bob.user.id }),
      404,
      'ROW_NOT_FOUND',
    );
    const after = await api('GET', `notes/${adaNote}`, project.admin);
    assert.equal(after.body.data.owner, ada.user.id);
    assert.equal(after.body.data.title, 'ada 1 edited');
  });

  it('@request.auth.<column> reads the current row: a role granted by the admin counts at once', async () => {
    assertError(await api('POST', 'announcements', bearer(ada.token), { text: 'hello' }), 403, 'FORBIDDEN');
    await api('PATCH', `users/${ada.user.id}`, project.admin, { role: 'staff' });
    assert.equal((await api('POST', 'announcements', bearer(ada.token), { text: 'hello' })).status, 201);
    assertError(await api('POST', 'announcements', bearer(bob.token), { text: 'me too' }), 403, 'FORBIDDEN');
  });

  it('the owner deletes their note → 204', async () => {
    assert.equal((await api('DELETE', `notes/${adaNote}`, bearer(ada.token))).status, 204);
  });
});

describe('the auth table through /api/', () => {
  it('a user views their own row (never the password); others → 404; list is admin-only → 403', async () => {
    const own = await api('GET', `users/${ada.user.id}`, bearer(ada.token));
    assert.equal(own.status, 200);
    assert.equal(own.body.data.email, 'ada@example.com');
    assert.ok(!('password' in own.body.data) && !('password_version' in own.body.data));
    assertError(await api('GET', `users/${bob.user.id}`, bearer(ada.token)), 404, 'ROW_NOT_FOUND');
    assertError(await api('GET', 'users', bearer(ada.token)), 403, 'FORBIDDEN');
  });

  it('a user updates their own custom columns → 200', async () => {
    const response = await api('PATCH', `users/${ada.user.id}`, bearer(ada.token), { name: 'Ada L.' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.name, 'Ada L.');
  });

  const protectedFields: [string, unknown][] = [
    ['email_verified', { email_verified: true }],
    ['email', { email: 'new@example.com' }],
    ['password', { password: 'a new password here' }],
  ];
  for (const [field, body] of protectedFields) {
    it(`a user setting ${field} through /api/ → 403 FORBIDDEN, and nothing changes`, async () => {
      assertError(await api('PATCH', `users/${ada.user.id}`, bearer(ada.token), body), 403, 'FORBIDDEN');
      const row = await api('GET', `users/${ada.user.id}`, project.admin);
      assert.equal(row.body.data.email, 'ada@example.com');
      assert.equal(row.body.data.email_verified, false);
    });
  }

  it('the old password still works after the refused password change', async () => {
    assert.equal(
      (
        await server.request('POST', `/p/${project.id}/auth/login`, {
          body: { email: 'ada@example.com', password: 'correct horse battery' },
        })
      ).status,
      200,
    );
  });

  it('creating users through /api/ needs the admin key: bearer and pk_ → 403 FORBIDDEN', async () => {
    for (const headers of [bearer(ada.token), project.anon]) {
      assertError(
        await api('POST', 'users', headers, {
          email: 'mallory@example.com',
          password: 'mallory password',
          email_verified: true,
        }),
        403,
        'FORBIDDEN',
      );
    }
  });

  it('the admin key may set email_verified; the user sees it through me', async () => {
    const response = await api('PATCH', `users/${bob.user.id}`, project.admin, { email_verified: true });
    assert.equal(response.status, 200);
    const me = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(bob.token) });
    assert.equal(me.body.user.email_verified, true);
  });

  it("an admin password change through /api/ ends the user's access tokens", async () => {
    const carol = await signUp(server, project, 'carol@example.com');
    assert.equal(
      (await api('PATCH', `users/${carol.user.id}`, project.admin, { password: 'set by the admin' })).status,
      200,
    );
    assertError(await api('GET', `users/${carol.user.id}`, bearer(carol.token)), 401, 'AUTH_INVALID_TOKEN');
  });
});

describe('credentials on the data API', () => {
  it('a logged-out token → 401 AUTH_INVALID_TOKEN', async () => {
    const dan = await signUp(server, project, 'dan@example.com');
    await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(dan.token) });
    assertError(await api('GET', `users/${dan.user.id}`, bearer(dan.token)), 401, 'AUTH_INVALID_TOKEN');
  });

  it('a token of another project → 401 AUTH_INVALID_TOKEN', async () => {
    const other = await createAuthProject(server);
    const eve = await signUp(server, other, 'eve@example.com');
    assertError(await api('GET', 'notes', bearer(eve.token)), 401, 'AUTH_INVALID_TOKEN');
  });

  it('a project without an auth table answers bearer tokens with 401 AUTH_INVALID_TOKEN', async () => {
    const plain = await createAuthProject(server);
    await server.request('DELETE', `/p/${plain.id}/v1/tables/users`, { headers: plain.admin });
    await putTable(server, plain, 'things', { columns: [{ name: 'x', type: 'text' }], rules: { list: '' } });
    assertError(
      await server.request('GET', `/p/${plain.id}/api/things`, { headers: bearer(ada.token) }),
      401,
      'AUTH_INVALID_TOKEN',
    );
  });
});
