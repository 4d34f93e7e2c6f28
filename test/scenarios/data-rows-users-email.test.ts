import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuthProject, signUp, tokenIn, waitForMail } from '../helpers/auth-fixtures.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// An address the admin changes through the data API is unproven: the flag resets and links
// mailed to the old address (verification or reset) stop working.
describe('admin changes a user email through /api/', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, { verifyEmail: true });
  });
  after(() => server.close());

  it('a changed email → email_verified false; the old verify link → 400 AUTH_INVALID_ONE_TIME_TOKEN', async () => {
    const user = await signUp(server, project, 'old@example.com');
    const link = tokenIn(await waitForMail(server, project, 'old@example.com'));
    const verified = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: project.admin,
      body: { email_verified: true },
    });
    assert.equal(verified.body.data.email_verified, true);

    const changed = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: project.admin,
      body: { email: 'New@Example.com' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.email, 'new@example.com');
    assert.equal(changed.body.data.email_verified, false);

    const verify = await server.request('GET', `/p/${project.id}/auth/verify?token=${encodeURIComponent(link)}`);
    assert.equal(verify.status, 400, verify.text);
    assert.equal(verify.body.error.code, 'AUTH_INVALID_ONE_TIME_TOKEN');
  });

  it('the same email sent again keeps email_verified', async () => {
    const user = await signUp(server, project, 'same@example.com');
    await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: project.admin,
      body: { email_verified: true },
    });
    const again = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: project.admin,
      body: { email: 'same@example.com' },
    });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.email_verified, true);
  });

  it('an admin may set a new email and mark it verified in one request', async () => {
    const user = await signUp(server, project, 'both@example.com');
    const response = await server.request('PATCH', `/p/${project.id}/api/users/${user.user.id}`, {
      headers: project.admin,
      body: { email: 'both2@example.com', email_verified: true },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.email_verified, true);
  });
});
