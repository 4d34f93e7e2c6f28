import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// app_name and email_from end up in mail headers: a line break there could inject headers.
describe('PATCH /p/{id}/v1/settings: mail header fields', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
  });
  after(() => server.close());

  const accepted: [string, Record<string, unknown>][] = [
    ['a bare address', { email_from: 'no-reply@example.com' }],
    ['a display name and address', { email_from: 'Acme App <no-reply@example.com>' }],
    ['null email_from', { email_from: null }],
    ['a one-line app name', { app_name: 'Acme — Tasks' }],
  ];
  for (const [name, body] of accepted) {
    it(`accepts ${name}`, async () => {
      const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, { headers: project.admin, body });
      assert.equal(response.status, 200, response.text);
      const [field, value] = Object.entries(body)[0]!;
      assert.equal(response.body.data[field], value);
    });
  }

  const refused: [string, Record<string, unknown>, string][] = [
    [
      'an email_from with a line break → VALIDATION_FAILED',
      { email_from: 'a@example.com\r\nBcc: victim@example.com' },
      'email_from',
    ],
    ['an email_from that is not an address → VALIDATION_FAILED', { email_from: 'nobody' }, 'email_from'],
    ['an app_name with a line break → VALIDATION_FAILED', { app_name: 'Acme\nBcc: victim@example.com' }, 'app_name'],
  ];
  for (const [name, body, field] of refused) {
    it(`refuses ${name}`, async () => {
      const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, { headers: project.admin, body });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error.code, 'VALIDATION_FAILED');
      assert.match(response.body.error.message, new RegExp(`${field} must be null or one line`));
    });
  }
});
