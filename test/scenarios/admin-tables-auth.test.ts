/**
 * The schema API on auth tables (contract §2): defaults, one auth table per project, rules
 * of other tables naming @request.auth fields, and changes that would break those rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('schema API: auth tables', () => {
  let server: TestServer;
  let authProject: TestProject;
  before(async () => {
    server = await startTestServer();
    authProject = await createProject(server, 'schema-auth');
  });
  after(() => server.close());

  it('an auth table gets the auth rule defaults and its system columns', async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/users`, {
      headers: authProject.admin,
      body: {
        auth_table: true,
        verify_email: true,
        columns: [
          { name: 'display_name', type: 'text' },
          { name: 'role', type: 'text', default: 'member' },
        ],
      },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.auth_table, true);
    assert.equal(response.body.data.verify_email, true);
    assert.deepEqual(response.body.data.rules, {
      list: null,
      view: 'id = @request.auth.id',
      create: '',
      update: 'id = @request.auth.id',
      delete: null,
    });
  });

  it('a second auth table → 409 AUTH_TABLE_EXISTS, and is not created', async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/admins`, {
      headers: authProject.admin,
      body: { auth_table: true, columns: [] },
    });
    assertError(response, 409, 'AUTH_TABLE_EXISTS');
    assertError(
      await server.request('GET', `/p/${authProject.id}/v1/tables/admins`, { headers: authProject.admin }),
      404,
      'TABLE_NOT_FOUND',
    );
  });

  it('rules of other tables may name @request.auth.<column of the auth table>', async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/posts`, {
      headers: authProject.admin,
      body: {
        columns: [
          { name: 'author', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
          { name: 'public', type: 'boolean' },
        ],
        rules: {
          list: 'public = true || author = @request.auth.id',
          update: 'author = @request.auth.id && @request.auth.role = "admin"',
        },
      },
    });
    assert.equal(response.status, 201, response.text);
  });

  it('the auth table itself can be changed (200) and keeps being the auth table', async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/users`, {
      headers: authProject.admin,
      body: {
        auth_table: true,
        columns: [
          { name: 'display_name', type: 'text' },
          { name: 'role', type: 'text', default: 'member' },
          { name: 'bio', type: 'text' },
        ],
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.auth_table, true);
  });

  it("dropping an auth column another table's rule uses → 400 VALIDATION_FAILED naming that table", async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/users?allow_destructive=true`, {
      headers: authProject.admin,
      body: { auth_table: true, columns: [{ name: 'display_name', type: 'text' }] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'posts');
    assertMessageIncludes(response, 'role');
  });

  it('turning the auth table into a plain table while rules use it → 400 VALIDATION_FAILED', async () => {
    const response = await server.request('PUT', `/p/${authProject.id}/v1/tables/users?allow_destructive=true`, {
      headers: authProject.admin,
      body: {
        columns: [
          { name: 'display_name', type: 'text' },
          { name: 'role', type: 'text', default: 'member' },
          { name: 'bio', type: 'text' },
        ],
      },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'posts');
  });

  it('deleting the auth table while rules use it → 409 TABLE_IN_USE', async () => {
    // Drop the foreign key to users first, so that only the rule ties posts to it.
    const dropped = await server.request('PUT', `/p/${authProject.id}/v1/tables/posts?allow_destructive=true`, {
      headers: authProject.admin,
      body: { columns: [{ name: 'public', type: 'boolean' }], rules: { list: '@request.auth.role = "admin"' } },
    });
    assert.equal(dropped.status, 200, dropped.text);
    const response = await server.request('DELETE', `/p/${authProject.id}/v1/tables/users`, {
      headers: authProject.admin,
    });
    assertError(response, 409, 'TABLE_IN_USE');
    assertMessageIncludes(response, 'posts');
    assertMessageIncludes(response, 'rule');
  });

  it('after the refused changes every table of the project still serves', async () => {
    const tables = await server.request('GET', `/p/${authProject.id}/v1/tables`, { headers: authProject.admin });
    assert.equal(tables.status, 200, tables.text);
    const posts = await server.request('GET', `/p/${authProject.id}/api/posts`, { headers: authProject.admin });
    assert.equal(posts.status, 200, posts.text);
  });

  it('once no rule uses the auth table it can be deleted', async () => {
    await putTable(server, authProject, 'posts', {
      columns: [{ name: 'public', type: 'boolean' }],
      rules: { list: 'public = true' },
    });
    const response = await server.request('DELETE', `/p/${authProject.id}/v1/tables/users`, {
      headers: authProject.admin,
    });
    assert.equal(response.status, 204, response.text);
    assert.equal(
      (await server.request('GET', `/p/${authProject.id}/api/posts`, { headers: authProject.anon })).status,
      200,
    );
  });
});
