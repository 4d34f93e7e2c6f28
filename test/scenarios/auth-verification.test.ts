/**
 * Scenarios for email verification: the mail at signup (links built from PUBLIC_URL only,
 * bodies naming app_name, HTML escaped), GET verify, resend-verification, and single-use,
 * expiring tokens. Mail is read from the outbox.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import {
  bearer,
  createAuthProject,
  linkIn,
  mailsTo,
  patchSettings,
  PASSWORD,
  signUp,
  tokenIn,
  waitForMail,
  type SignedUp,
} from '../helpers/auth-fixtures.js';
import { startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

const PUBLIC_URL = 'https://api.rowbase.test/base';
const clock = new TestClock();
let server: TestServer;
let project: TestProject;

before(async () => {
  server = await startTestServer({ PUBLIC_URL }, { clock });
  project = await createAuthProject(server, { verifyEmail: true, settings: { app_name: 'Tom & <Jerry>' } });
});
after(() => server.close());

const verify = (token: string) =>
  server.request('GET', `/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`);
const resend = (token?: string) =>
  server.request(
    'POST',
    `/p/${project.id}/auth/resend-verification`,
    token === undefined ? {} : { headers: bearer(token) },
  );

/** POSTs JSON with raw headers (fetch will not send a custom Host). */
function rawPost(path: string, body: object, headers: Record<string, string>): Promise<number> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

describe('the verification mail at signup', () => {
  let ada: SignedUp;
  before(async () => {
    ada = await signUp(server, project, 'ada@example.com');
  });

  it('goes to the new user, names app_name, links to PUBLIC_URL/p/{id}/auth/verify?token=', async () => {
    const [mail, ...others] = await mailsTo(server, project, 'ada@example.com');
    assert.equal(others.length, 0);
    assert.equal(mail!.subject, 'Verify your email for Tom & <Jerry>');
    assert.match(mail!.text, /Tom & <Jerry>/);
    const link = linkIn(mail!);
    assert.equal(`${link.origin}${link.pathname}`, `${PUBLIC_URL}/p/${project.id}/auth/verify`);
    assert.match(tokenIn(mail!), /^[A-Za-z0-9_-]{43,}$/);
  });

  it('HTML body escapes app_name (no markup injection) and carries the same link', async () => {
    const [mail] = await mailsTo(server, project, 'ada@example.com');
    assert.ok(mail!.html.includes('Tom &amp; &lt;Jerry&gt;'), mail!.html);
    assert.ok(!mail!.html.includes('<Jerry>'));
    assert.ok(mail!.html.includes(`href="${linkIn(mail!).href}"`));
  });

  it('Host and X-Forwarded-Host headers never shape the link', async () => {
    const status = await rawPost(
      `/p/${project.id}/auth/signup`,
      { email: 'host@example.com', password: PASSWORD },
      { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    );
    assert.equal(status, 201);
    const mail = await waitForMail(server, project, 'host@example.com');
    assert.ok(linkIn(mail).href.startsWith(`${PUBLIC_URL}/p/`), linkIn(mail).href);
    assert.ok(!mail.text.includes('evil.example') && !mail.html.includes('evil.example'));
  });

  it('GET verify → 200 {message, user} with email_verified true; me agrees', async () => {
    const [mail] = await mailsTo(server, project, 'ada@example.com');
    const response = await verify(tokenIn(mail!));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['message', 'user']);
    assert.equal(response.body.user.email_verified, true);
    assert.equal(response.body.user.id, ada.user.id);
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(ada.token) })).body.user
        .email_verified,
      true,
    );
  });

  it('the same link again → 400 AUTH_INVALID_ONE_TIME_TOKEN', async () => {
    const [mail] = await mailsTo(server, project, 'ada@example.com');
    assertError(await verify(tokenIn(mail!)), 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
  });

  it('resend-verification once verified → 409 AUTH_ALREADY_VERIFIED', async () => {
    assertError(await resend(ada.token), 409, 'AUTH_ALREADY_VERIFIED');
  });
});

describe('POST /p/{id}/auth/resend-verification and GET verify', () => {
  let bob: SignedUp;
  before(async () => {
    bob = await signUp(server, project, 'bob@example.com');
  });

  it('resend → 200 {message} and a second mail with a new token; either link verifies once', async () => {
    const response = await resend(bob.token);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['message']);
    const mails = await mailsTo(server, project, 'bob@example.com');
    assert.equal(mails.length, 2);
    assert.notEqual(tokenIn(mails[0]!), tokenIn(mails[1]!));
  });

  it('two concurrent uses of one verification token: exactly one succeeds', async () => {
    const [newest] = await mailsTo(server, project, 'bob@example.com');
    const results = await Promise.all([verify(tokenIn(newest!)), verify(tokenIn(newest!)), verify(tokenIn(newest!))]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
    for (const failed of results.filter((r) => r.status === 400))
      assertError(failed, 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
  });

  it('a verification token expires after 24 hours', async () => {
    const carol = await signUp(server, project, 'carol@example.com');
    clock.advance(24 * 3600 + 1);
    const [mail] = await mailsTo(server, project, 'carol@example.com');
    assertError(await verify(tokenIn(mail!)), 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
    // A fresh access token (the first expired with the clock) can ask for a new link that works.
    const login = await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'carol@example.com', password: PASSWORD },
    });
    assert.equal((await resend(login.body.token)).status, 200);
    const fresh = await waitForMail(server, project, 'carol@example.com', 2);
    assert.equal((await verify(tokenIn(fresh))).status, 200);
    assert.ok(carol.user.id);
  });

  const refusedQueries: [string, string, number, string][] = [
    ['no token', '', 400, 'VALIDATION_FAILED'],
    ['token given twice (an array)', '?token=a&token=b', 400, 'VALIDATION_FAILED'],
    ['token[] bracket syntax', '?token[]=a', 400, 'VALIDATION_FAILED'],
    ['token[$ne] object syntax', '?token[$ne]=x', 400, 'VALIDATION_FAILED'],
    ['an unknown token', `?token=${'B'.repeat(43)}`, 400, 'AUTH_INVALID_ONE_TIME_TOKEN'],
    ['an empty token', '?token=', 400, 'AUTH_INVALID_ONE_TIME_TOKEN'],
  ];
  for (const [name, query, status, code] of refusedQueries) {
    it(`GET verify with ${name} → ${status} ${code}`, async () => {
      assertError(await server.request('GET', `/p/${project.id}/auth/verify${query}`), status, code);
    });
  }

  it('a reset token is not a verification token', async () => {
    await patchSettings(server, project, { allowed_redirect_origins: ['https://app.example.com'] });
    const dave = await signUp(server, project, 'dave@example.com');
    await server.request('POST', `/p/${project.id}/auth/forgot-password`, {
      body: { email: 'dave@example.com', redirect_url: 'https://app.example.com/reset' },
    });
    const reset = await waitForMail(server, project, 'dave@example.com', 2);
    assert.match(reset.subject, /Reset/);
    assertError(await verify(tokenIn(reset)), 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(dave.token) })).body.user
        .email_verified,
      false,
    );
  });

  it('resend without a bearer → 401 AUTH_REQUIRED; with a bad one → 401 AUTH_INVALID_TOKEN', async () => {
    assertError(await resend(), 401, 'AUTH_REQUIRED');
    assertError(await resend('not-a-token'), 401, 'AUTH_INVALID_TOKEN');
  });
});

describe('tables without verify_email', () => {
  it('signup sends no mail; verify and resend-verification → 404 AUTH_NOT_CONFIGURED', async () => {
    const plain = await createAuthProject(server);
    const user = await signUp(server, plain, 'erin@example.com');
    assert.equal((await mailsTo(server, plain, 'erin@example.com')).length, 0);
    const verify = await server.request('GET', `/p/${plain.id}/auth/verify?token=x`);
    assertError(verify, 404, 'AUTH_NOT_CONFIGURED');
    assert.ok(
      verify.body.error.suggestion.includes(`PUT /p/${plain.id}/v1/tables/users`),
      `the suggestion names the real project id: ${verify.body.error.suggestion}`,
    );
    assertError(
      await server.request('POST', `/p/${plain.id}/auth/resend-verification`, { headers: bearer(user.token) }),
      404,
      'AUTH_NOT_CONFIGURED',
    );
  });
});
