/**
 * Strict redirect URLs and redirect origins (issue 10 item 2). forgot-password refuses a
 * `redirect_url` holding any control character or whitespace (the URL parser would silently
 * drop tabs and newlines, so the string sent would not be the URL mailed), and answers every
 * refused `redirect_url`, whatever the reason, with 400 VALIDATION_REDIRECT_URL.
 * `allowed_redirect_origins` refuses wildcards and hosts that are neither DNS names nor IP
 * literals with 400 VALIDATION_FAILED, leaving the stored list unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { createAuthProject, linkIn, mailsTo, outbox, signUp, waitForMail } from '../helpers/auth-fixtures.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const ALLOWED = ['https://app.example.com', 'http://localhost:3000'];
let server: TestServer;
let project: TestProject;
before(async () => {
  server = await startTestServer();
  project = await createAuthProject(server, { settings: { allowed_redirect_origins: ALLOWED } });
  await signUp(server, project, 'ada@example.com');
});
after(() => server.close());

const forgot = (body: unknown) => server.request('POST', `/p/${project.id}/auth/forgot-password`, { body });
const origins = async () =>
  (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin })).body.data
    .allowed_redirect_origins;

describe('POST /p/{id}/auth/forgot-password: every refused redirect_url → 400 VALIDATION_REDIRECT_URL', () => {
  const refused: [string, unknown][] = [
    ['a tab inside the host (https://app.exa\\tmple.com/reset)', 'https://app.exa\tmple.com/reset'],
    ['a newline inside the host', 'https://app.exa\nmple.com/reset'],
    ['a carriage return in the path', 'https://app.example.com/re\rset'],
    ['a tab in the scheme', 'ht\ttps://app.example.com/reset'],
    ['a NUL byte', 'https://app.example.com/reset\u0000'],
    ['an escape character', 'https://app.example.com/\u001breset'],
    ['DEL', 'https://app.example.com/reset\u007f'],
    ['a space in the path', 'https://app.example.com/re set'],
    ['a leading space', ' https://app.example.com/reset'],
    ['a trailing newline', 'https://app.example.com/reset\n'],
    ['a no-break space', 'https://app.example.com/reset\u00a0'],
    ['longer than 2048 characters', `https://app.example.com/${'a'.repeat(2100)}`],
    ['unparsable', 'https://'],
    ['not a URL at all', 'reset please'],
    ['an origin not allowed', 'https://evil.example.com/reset'],
    ['a number', 42],
    ['an object', { href: 'https://app.example.com/reset' }],
    ['null', null],
    ['an array', ['https://app.example.com/reset']],
  ];
  for (const [name, redirectUrl] of refused) {
    it(`${name}, known and unknown email alike`, async () => {
      for (const email of ['ada@example.com', 'nobody@example.com']) {
        const response = await forgot({ email, redirect_url: redirectUrl });
        assertError(response, 400, 'VALIDATION_REDIRECT_URL');
        assert.ok(
          response.body.error.suggestion.includes(`PUT /p/${project.id}/v1/redirect-origins`),
          response.body.error.suggestion,
        );
        assert.ok(!response.body.error.suggestion.includes('{id}'), 'the suggestion names the real project id');
      }
    });
  }

  it('a missing redirect_url is a malformed body → 400 VALIDATION_FAILED', async () => {
    assertError(await forgot({ email: 'ada@example.com' }), 400, 'VALIDATION_FAILED');
  });

  it('nothing was mailed for any refused redirect_url', async () => {
    assert.equal((await mailsTo(server, project, 'ada@example.com')).length, 0);
  });

  it('a percent-encoded space is fine, and the mail links to exactly that URL', async () => {
    const response = await forgot({ email: 'ada@example.com', redirect_url: 'https://app.example.com/re%20set?a=%09' });
    assert.equal(response.status, 200, response.text);
    const link = linkIn(await waitForMail(server, project, 'ada@example.com'));
    assert.equal(`${link.origin}${link.pathname}`, 'https://app.example.com/re%20set');
    assert.equal(link.searchParams.get('a'), '\t');
  });
});

describe('allowed_redirect_origins: wildcards and non-hosts → 400 VALIDATION_FAILED, the list unchanged', () => {
  const refused: [string, string][] = [
    ['a wildcard subdomain', 'https://*.example.com'],
    ['a bare wildcard host', 'https://*'],
    ['a wildcard inside a label', 'https://app*.example.com'],
    ['a wildcard port', 'https://app.example.com:*'],
    ['an underscore in the host', 'https://app_1.example.com'],
    ['a label starting with a hyphen', 'https://-app.example.com'],
    ['an empty label', 'https://app..example.com'],
    ['a trailing dot', 'https://app.example.com.'],
    ['a label of 64 characters', `https://${'a'.repeat(64)}.example.com`],
    ['a tab inside the host (the parser would drop it)', 'https://app.exa\tmple.com'],
    ['a trailing newline', 'https://app.example.com\n'],
    ['a leading space', ' https://app.example.com'],
    ['a host with "!"', 'https://app!.example.com'],
    ['a host with "$"', 'https://a$b.example.com'],
  ];
  for (const [name, origin] of refused) {
    it(`${name}: PUT redirect-origins and PATCH settings`, async () => {
      const before = await origins();
      const put = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
        headers: project.admin,
        body: { allowed_redirect_origins: ['https://ok.example.com', origin] },
      });
      assertError(put, 400, 'VALIDATION_FAILED');
      assert.match(put.body.error.message, /allowed_redirect_origins/);
      assertError(
        await server.request('PATCH', `/p/${project.id}/v1/settings`, {
          headers: project.admin,
          body: { allowed_redirect_origins: [origin] },
        }),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(await origins(), before);
    });
  }

  it('the wildcard refusal says to list each origin', async () => {
    const response = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
      headers: project.admin,
      body: { allowed_redirect_origins: ['https://*.example.com'] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assert.match(response.body.error.message, /wildcard/);
  });

  it('DNS names, IPv4 and IPv6 literals, localhost and internationalised names are accepted, normalised', async () => {
    const other = await createAuthProject(server);
    const response = await server.request('PUT', `/p/${other.id}/v1/redirect-origins`, {
      headers: other.admin,
      body: {
        allowed_redirect_origins: [
          'https://App-1.Example.com',
          'http://127.0.0.1:8080',
          'http://[::1]:3000',
          'http://localhost',
          'https://bücher.example',
          'https://xn--d1acufc.xn--p1ai',
        ],
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.allowed_redirect_origins, [
      'https://app-1.example.com',
      'http://127.0.0.1:8080',
      'http://[::1]:3000',
      'http://localhost',
      'https://xn--bcher-kva.example',
      'https://xn--d1acufc.xn--p1ai',
    ]);
    assert.equal((await outbox(server, other)).length, 0);
  });
});
