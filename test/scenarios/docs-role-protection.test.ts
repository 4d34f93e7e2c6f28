import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// The auth table of docs/auth.md "Setting up", verbatim: users may not choose their role,
// neither at signup nor by editing their own row later.
describe('docs/auth.md: a role column protected by the create and update rules', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, {
      columns: [
        { name: 'display_name', type: 'text', max_length: 80 },
        { name: 'role', type: 'text', default: 'member' },
      ],
      rules: { create: '@request.body.role = null', update: 'id = @request.auth.id && @request.body.role = null' },
    });
  });
  after(() => server.close());

  it('signup choosing a role → 403 FORBIDDEN', async () => {
    const response = await server.request('POST', `/p/${project.id}/auth/signup`, { body: { email: 'eve@example.com', password: 'correct horse battery', role: 'editor' } });
    assert.equal(response.status, 403, response.text);
    assert.equal(response.body.error.code, 'FORBIDDEN');
  });

  it('a member PATCHing their own role → 404 ROW_NOT_FOUND and the role stays member', async () => {
    const user = await signUp(server, project, 'mallory@example.com');
    assert.equal(user.user.role, 'member');
    const patch = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, { headers: bearer(user.token), body: { role: 'editor' } });
    assert.equal(patch.status, 404, patch.text);
    assert.equal(patch.body.error.code, 'ROW_NOT_FOUND');
    const me = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(user.token) });
    assert.equal(me.body.user.role, 'member');
  });

  it('a member may still change their other columns → 200', async () => {
    const user = await signUp(server, project, 'ada@example.com');
    const patch = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, { headers: bearer(user.token), body: { display_name: 'Ada' } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.body.data.display_name, 'Ada');
    assert.equal(patch.body.data.role, 'member');
  });
});
