/**
 * Scenarios for project settings (contract §3): PUT redirect-origins, GET and PATCH
 * settings, each behind X-Admin-Key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let other: TestProject;
before(async () => {
  server = await startTestServer();
  project = await createProject(server);
  other = await createProject(server);
});
after(() => server.close());

const DEFAULTS = {
  allowed_redirect_origins: [],
  cors_origins: ['*'],
  access_token_ttl: 3600,
  refresh_token_ttl: 2_592_000,
  refresh_token_rotation: false,
  revoke_sessions_on_password_change: false,
  require_verified_email: false,
  app_name: null,
  email_from: null,
  min_password_length: 8,
  rate_limits: { per_address_per_minute: 30, failed_logins_per_email: 10, mails_per_email_per_hour: 5 },
  data_rate_limits: null,
  verify_redirect_url: null,
};

describe('caller matrix', () => {
  const routes: [string, string, unknown][] = [
    ['PUT', 'redirect-origins', { allowed_redirect_origins: [] }],
    ['GET', 'settings', undefined],
    ['PATCH', 'settings', { app_name: 'x' }],
  ];
  for (const [method, path, body] of routes) {
    const send = (headers: Record<string, string>, target = project) =>
      server.request(method, `/p/${target.id}/v1/${path}`, { headers, ...(body !== undefined && { body }) });
    it(`${method} ${path}: no key → 401 AUTH_REQUIRED`, async () => assertError(await send({}), 401, 'AUTH_REQUIRED'));
    it(`${method} ${path}: the pk_ key → 401 AUTH_INVALID_KEY`, async () =>
      assertError(await send({ 'x-admin-key': project.publishableKey }), 401, 'AUTH_INVALID_KEY'));
    it(`${method} ${path}: another project's sk_ key → 401 AUTH_INVALID_KEY`, async () =>
      assertError(await send(other.admin), 401, 'AUTH_INVALID_KEY'));
    it(`${method} ${path}: unknown project → 404 PROJECT_NOT_FOUND`, async () => {
      assertError(
        await server.request(method, `/p/no-such-project/v1/${path}`, {
          headers: project.admin,
          ...(body !== undefined && { body }),
        }),
        404,
        'PROJECT_NOT_FOUND',
      );
    });
  }
});

describe('GET /p/{id}/v1/settings', () => {
  it('200 {data: settings} with the documented defaults', async () => {
    const response = await server.request('GET', `/p/${other.id}/v1/settings`, { headers: other.admin });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { data: DEFAULTS });
  });
});

describe('PUT /p/{id}/v1/redirect-origins', () => {
  it('200 {data: {allowed_redirect_origins}}, normalised (lower case, default port dropped, deduped)', async () => {
    const response = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
      headers: project.admin,
      body: {
        allowed_redirect_origins: [
          'HTTPS://App.Example.COM:443',
          'http://localhost:3000',
          'https://app.example.com/',
          'http://[::1]:8080',
        ],
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      data: { allowed_redirect_origins: ['https://app.example.com', 'http://localhost:3000', 'http://[::1]:8080'] },
    });
    const settings = await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin });
    assert.deepEqual(settings.body.data.allowed_redirect_origins, response.body.data.allowed_redirect_origins);
  });

  it('replaces the list: an empty array clears it', async () => {
    const response = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
      headers: project.admin,
      body: { allowed_redirect_origins: [] },
    });
    assert.deepEqual(response.body, { data: { allowed_redirect_origins: [] } });
  });

  const refused: [string, unknown][] = [
    ['a path', { allowed_redirect_origins: ['https://app.example.com/reset'] }],
    ['a query', { allowed_redirect_origins: ['https://app.example.com?x=1'] }],
    ['a fragment', { allowed_redirect_origins: ['https://app.example.com#x'] }],
    ['userinfo', { allowed_redirect_origins: ['https://user@app.example.com'] }],
    ['another scheme', { allowed_redirect_origins: ['ftp://app.example.com'] }],
    ['javascript:', { allowed_redirect_origins: ['javascript:alert(1)'] }],
    ['no scheme', { allowed_redirect_origins: ['app.example.com'] }],
    ['a number in the list', { allowed_redirect_origins: [42] }],
    ['a string instead of the list', { allowed_redirect_origins: 'https://app.example.com' }],
    ['the field missing', {}],
    ['an extra field', { allowed_redirect_origins: [], app_name: 'x' }],
    ['an array body', ['https://app.example.com']],
  ];
  for (const [name, body] of refused) {
    it(`${name} → 400 VALIDATION_FAILED, and nothing stored`, async () => {
      assertError(
        await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, { headers: project.admin, body }),
        400,
        'VALIDATION_FAILED',
      );
      const settings = await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin });
      assert.deepEqual(settings.body.data.allowed_redirect_origins, []);
    });
  }
});

describe('PATCH /p/{id}/v1/settings', () => {
  it('changes only the fields sent; rate_limits merge field by field', async () => {
    const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
      headers: project.admin,
      body: {
        app_name: 'Acme',
        access_token_ttl: 900,
        refresh_token_rotation: true,
        rate_limits: { per_address_per_minute: 5 },
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, {
      ...DEFAULTS,
      app_name: 'Acme',
      access_token_ttl: 900,
      refresh_token_rotation: true,
      rate_limits: { ...DEFAULTS.rate_limits, per_address_per_minute: 5 },
    });
    const again = await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin });
    assert.deepEqual(again.body.data, response.body.data);
  });

  it('allowed_redirect_origins through PATCH is normalised like PUT', async () => {
    const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
      headers: project.admin,
      body: { allowed_redirect_origins: ['HTTP://LOCALHOST:80'] },
    });
    assert.deepEqual(response.body.data.allowed_redirect_origins, ['http://localhost']);
  });

  const refused: [string, unknown][] = [
    ['an unknown setting', { session_length: 5 }],
    ['access_token_ttl as a string', { access_token_ttl: '3600' }],
    ['access_token_ttl of 0', { access_token_ttl: 0 }],
    ['min_password_length below 8', { min_password_length: 4 }],
    ['min_password_length above 256', { min_password_length: 300 }],
    ['refresh_token_rotation as "yes"', { refresh_token_rotation: 'yes' }],
    ['an unknown rate limit', { rate_limits: { per_hour: 5 } }],
    ['a rate limit of 0', { rate_limits: { per_address_per_minute: 0 } }],
    ['a bad origin', { allowed_redirect_origins: ['https://a.example.com/path'] }],
    ['an array body', [{ app_name: 'x' }]],
  ];
  for (const [name, body] of refused) {
    it(`${name} → 400 VALIDATION_FAILED`, async () => {
      assertError(
        await server.request('PATCH', `/p/${project.id}/v1/settings`, { headers: project.admin, body }),
        400,
        'VALIDATION_FAILED',
      );
    });
  }

  it('settings of one project do not leak into another', async () => {
    const response = await server.request('GET', `/p/${other.id}/v1/settings`, { headers: other.admin });
    assert.deepEqual(response.body.data, DEFAULTS);
  });
});
