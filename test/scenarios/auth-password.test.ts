/**
 * Scenarios for change-password, forgot-password and reset-password: redirect-URL checks,
 * identical answers for unknown emails, single-use and expiring reset tokens, and what a
 * password change does to access and refresh tokens. Mail is read from the outbox.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import {
  bearer,
  createAuthProject,
  linkIn,
  logIn,
  mailsTo,
  patchSettings,
  PASSWORD,
  signUp,
  tokenIn,
  waitForMail,
  type SignedUp,
} from '../helpers/auth-fixtures.js';
import { startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

const NEW_PASSWORD = 'a brand new passphrase';
const clock = new TestClock();
let server: TestServer;
let project: TestProject;

before(async () => {
  server = await startTestServer({}, { clock });
  project = await createAuthProject(server, {
    settings: { allowed_redirect_origins: ['https://allowed.com', 'http://localhost:3000'], app_name: 'Acme' },
  });
});
after(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request('POST', `/p/${project.id}/auth/${path}`, { body, headers });
const me = (token: string) => server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(token) });

/** Asks for a reset link for `email` and returns the token of the mail it produced. */
async function resetTokenFor(email: string, redirect = 'https://allowed.com/reset'): Promise<string> {
  const before = (await mailsTo(server, project, email)).length;
  const response = await post('forgot-password', { email, redirect_url: redirect });
  assert.equal(response.status, 200, response.text);
  return tokenIn(await waitForMail(server, project, email, before + 1));
}

describe('POST /p/{id}/auth/forgot-password: redirect_url', () => {
  before(async () => {
    await signUp(server, project, 'ada@example.com');
  });

  const refused: [string, string][] = [
    ['userinfo trick https://allowed.com@evil.com', 'https://allowed.com@evil.com/reset'],
    ['scheme-relative //evil.com', '//evil.com/reset'],
    ['look-alike host https://allowed.com.evil.com', 'https://allowed.com.evil.com/reset'],
    ['allowed origin in the path https://evil.com/https://allowed.com', 'https://evil.com/https://allowed.com'],
    ['javascript: URL', 'javascript:alert(document.domain)//https://allowed.com'],
    ['data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['other port https://allowed.com:8443', 'https://allowed.com:8443/reset'],
    ['other scheme http://allowed.com', 'http://allowed.com/reset'],
    ['backslash trick https:\\\\evil.com', 'https:\\\\evil.com\\reset'],
    ['relative path /reset', '/reset'],
    ['userinfo on the right host https://user:pw@allowed.com', 'https://user:pw@allowed.com/reset'],
    ['not a URL', 'reset please'],
    ['subdomain of an allowed origin', 'https://www.allowed.com/reset'],
  ];
  for (const [name, url] of refused) {
    it(`${name} → 400 VALIDATION_REDIRECT_URL, known and unknown email alike`, async () => {
      for (const email of ['ada@example.com', 'nobody@example.com']) {
        assertError(await post('forgot-password', { email, redirect_url: url }), 400, 'VALIDATION_REDIRECT_URL');
      }
    });
  }

  it('nothing was mailed for the refused URLs', async () => {
    assert.equal((await mailsTo(server, project, 'ada@example.com')).length, 0);
  });

  const allowed: [string, string, string][] = [
    ['upper-case HTTPS://ALLOWED.COM', 'HTTPS://ALLOWED.COM/Reset', 'https://allowed.com/Reset?token='],
    ['default port spelled out', 'https://allowed.com:443/reset', 'https://allowed.com/reset?token='],
    [
      'an existing query is kept, token appended',
      'https://allowed.com/reset?lang=fr&next=%2Fhome',
      'https://allowed.com/reset?lang=fr&next=%2Fhome&token=',
    ],
    ['a fragment stays after the query', 'https://allowed.com/reset#form', 'https://allowed.com/reset?token='],
    ['http://localhost:3000', 'http://localhost:3000/auth/reset', 'http://localhost:3000/auth/reset?token='],
  ];
  for (const [name, url, prefix] of allowed) {
    it(`${name} → 200, and the mail links to ${prefix}…`, async () => {
      const before = (await mailsTo(server, project, 'ada@example.com')).length;
      const response = await post('forgot-password', { email: 'ada@example.com', redirect_url: url });
      assert.equal(response.status, 200, response.text);
      const mail = await waitForMail(server, project, 'ada@example.com', before + 1);
      const link = linkIn(mail).href;
      assert.ok(link.startsWith(prefix), `${link} does not start with ${prefix}`);
      assert.match(tokenIn(mail), /^[A-Za-z0-9_-]{43,}$/);
      if (url.endsWith('#form')) assert.ok(link.endsWith('#form'), link);
      assert.ok(mail.html.includes(link.replaceAll('&', '&amp;')), 'the HTML body carries the same link, escaped');
      assert.match(mail.subject, /Acme/);
      assert.match(mail.text, /Acme/);
    });
  }
});

describe('POST /p/{id}/auth/forgot-password: unknown emails', () => {
  // Requests are resolved in order, in batches 100-200 ms after their answers. The request under
  // test is sent before one for ada, so once ada's mail is there the other was resolved too
  // (the extra pause covers a batch whose rows settle side by side).
  const settledAfter = async (adaMailsBefore: number) => {
    await waitForMail(server, project, 'ada@example.com', adaMailsBefore + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
  };

  it('answers exactly like a known email, and mails nobody', async () => {
    const before = (await mailsTo(server, project, 'ada@example.com')).length;
    const unknown = await post('forgot-password', {
      email: 'ghost@example.com',
      redirect_url: 'https://allowed.com/r',
    });
    const known = await post('forgot-password', { email: 'ada@example.com', redirect_url: 'https://allowed.com/r' });
    assert.equal(known.status, 200);
    assert.equal(unknown.status, known.status);
    assert.equal(unknown.text, known.text);
    assert.deepEqual(Object.keys(known.body), ['message']);
    await settledAfter(before);
    assert.equal((await mailsTo(server, project, 'ghost@example.com')).length, 0);
  });

  const noAccountCanHave: [string, string][] = [
    ['a line break and a header after it (header injection)', 'ada@example.com\r\nBcc: attacker@evil.example'],
    ['a bare newline', 'ghost@example.com\nX-Extra: 1'],
    ['not an address at all', 'not-an-email'],
    ['empty', ''],
  ];
  for (const [name, email] of noAccountCanHave) {
    it(`an email no account can hold (${name}) → the same 200, nothing mailed (never a 500)`, async () => {
      const before = (await mailsTo(server, project, 'ada@example.com')).length;
      const response = await post('forgot-password', { email, redirect_url: 'https://allowed.com/r' });
      const known = await post('forgot-password', { email: 'ada@example.com', redirect_url: 'https://allowed.com/r' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.text, known.text);
      await settledAfter(before);
      assert.equal((await mailsTo(server, project, email)).length, 0);
    });
  }

  const malformed: [string, unknown][] = [
    ['email as an object', { email: { $ne: '' }, redirect_url: 'https://allowed.com/r' }],
    ['email as an array', { email: ['ada@example.com'], redirect_url: 'https://allowed.com/r' }],
    ['email as a number', { email: 7, redirect_url: 'https://allowed.com/r' }],
    ['redirect_url missing', { email: 'ada@example.com' }],
  ];
  for (const [name, body] of malformed) {
    it(`${name} → 400 VALIDATION_FAILED`, async () => {
      assertError(await post('forgot-password', body), 400, 'VALIDATION_FAILED');
    });
  }
});

describe('POST /p/{id}/auth/reset-password', () => {
  let bob: SignedUp;
  before(async () => {
    bob = await signUp(server, project, 'bob@example.com');
    // Verified or not, the account keeps its refresh tokens through a reset by default (auth-reset-sessions.test.ts).
    const verified = await server.request('PATCH', `/p/${project.id}/api/users/${bob.user.id}`, {
      headers: project.admin,
      body: { email_verified: true },
    });
    assert.equal(verified.status, 200, verified.text);
  });

  it('200 {message}: the new password works, the old one and older access tokens not; refresh survives', async () => {
    const token = await resetTokenFor('bob@example.com');
    const response = await post('reset-password', { token, new_password: NEW_PASSWORD });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['message']);
    assertError(await post('login', { email: 'bob@example.com', password: PASSWORD }), 401, 'AUTH_INVALID_CREDENTIALS');
    await logIn(server, project, 'bob@example.com', NEW_PASSWORD);
    assertError(await me(bob.token), 401, 'AUTH_INVALID_TOKEN');
    const refreshed = await post('refresh', { refresh_token: bob.refresh_token });
    assert.equal(refreshed.status, 200);
    assert.equal(
      (await me(refreshed.body.token)).status,
      200,
      'the refresh token mints tokens for the new password version',
    );
  });

  it('a used reset token → 400 AUTH_INVALID_ONE_TIME_TOKEN', async () => {
    const token = await resetTokenFor('bob@example.com');
    assert.equal((await post('reset-password', { token, new_password: PASSWORD })).status, 200);
    assertError(
      await post('reset-password', { token, new_password: NEW_PASSWORD }),
      400,
      'AUTH_INVALID_ONE_TIME_TOKEN',
    );
    await logIn(server, project, 'bob@example.com', PASSWORD);
  });

  it('two concurrent uses of one token: exactly one succeeds', async () => {
    const token = await resetTokenFor('bob@example.com');
    const results = await Promise.all([
      post('reset-password', { token, new_password: 'first concurrent pw' }),
      post('reset-password', { token, new_password: 'second concurrent pw' }),
      post('reset-password', { token, new_password: 'third concurrent pw' }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400], results.map((r) => r.text).join('\n'));
    for (const failed of results.filter((r) => r.status === 400))
      assertError(failed, 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
    const winner = ['first concurrent pw', 'second concurrent pw', 'third concurrent pw'][
      results.findIndex((r) => r.status === 200)
    ]!;
    await logIn(server, project, 'bob@example.com', winner);
    await post('reset-password', { token: await resetTokenFor('bob@example.com'), new_password: PASSWORD });
  });

  it('a reset token dies when the password changes by other means (an older reset)', async () => {
    const older = await resetTokenFor('bob@example.com');
    const newer = await resetTokenFor('bob@example.com');
    assert.equal((await post('reset-password', { token: newer, new_password: NEW_PASSWORD })).status, 200);
    assertError(
      await post('reset-password', { token: older, new_password: 'attacker password' }),
      400,
      'AUTH_INVALID_ONE_TIME_TOKEN',
    );
    await logIn(server, project, 'bob@example.com', NEW_PASSWORD);
  });

  it('a reset token dies when the password is changed through change-password', async () => {
    const token = await resetTokenFor('bob@example.com');
    const session = await logIn(server, project, 'bob@example.com', NEW_PASSWORD);
    assert.equal(
      (await post('change-password', { current_password: NEW_PASSWORD, new_password: PASSWORD }, bearer(session.token)))
        .status,
      200,
    );
    assertError(
      await post('reset-password', { token, new_password: 'attacker password' }),
      400,
      'AUTH_INVALID_ONE_TIME_TOKEN',
    );
  });

  it('a reset token expires after 1 hour → 400 AUTH_INVALID_ONE_TIME_TOKEN', async () => {
    const token = await resetTokenFor('bob@example.com');
    clock.advance(3601);
    assertError(
      await post('reset-password', { token, new_password: NEW_PASSWORD }),
      400,
      'AUTH_INVALID_ONE_TIME_TOKEN',
    );
  });

  const refused: [string, unknown, string][] = [
    ['an unknown token', { token: 'A'.repeat(43), new_password: NEW_PASSWORD }, 'AUTH_INVALID_ONE_TIME_TOKEN'],
    ['an empty token', { token: '', new_password: NEW_PASSWORD }, 'AUTH_INVALID_ONE_TIME_TOKEN'],
    ['token as an object', { token: { $ne: '' }, new_password: NEW_PASSWORD }, 'VALIDATION_FAILED'],
    ['token as an array', { token: ['x'], new_password: NEW_PASSWORD }, 'VALIDATION_FAILED'],
    ['token as a number', { token: 12345, new_password: NEW_PASSWORD }, 'VALIDATION_FAILED'],
    ['new_password missing', { token: 'x' }, 'VALIDATION_FAILED'],
    ['new_password too short', { token: 'x', new_password: 'short' }, 'VALIDATION_PASSWORD'],
  ];
  for (const [name, body, code] of refused) {
    it(`${name} → 400 ${code}`, async () => {
      assertError(await post('reset-password', body), 400, code);
    });
  }

  it('a too-short new password does not use the token up', async () => {
    const token = await resetTokenFor('bob@example.com');
    assertError(await post('reset-password', { token, new_password: 'short' }), 400, 'VALIDATION_PASSWORD');
    assert.equal((await post('reset-password', { token, new_password: PASSWORD })).status, 200);
  });
});

describe('POST /p/{id}/auth/change-password', () => {
  let carol: { token: string; refresh_token: string };
  before(async () => {
    carol = await signUp(server, project, 'carol@example.com');
  });

  it('200 {token, user}: the new token works, every older access token fails, refresh tokens survive', async () => {
    const other = await logIn(server, project, 'carol@example.com');
    const response = await post(
      'change-password',
      { current_password: PASSWORD, new_password: NEW_PASSWORD },
      bearer(carol.token),
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['token', 'user']);
    assert.equal(response.body.user.email, 'carol@example.com');
    assert.equal((await me(response.body.token)).status, 200);
    assertError(await me(carol.token), 401, 'AUTH_INVALID_TOKEN');
    assertError(await me(other.token), 401, 'AUTH_INVALID_TOKEN');
    const refreshed = await post('refresh', { refresh_token: other.refresh_token });
    assert.equal(refreshed.status, 200);
    assert.equal((await me(refreshed.body.token)).status, 200);
    carol = { token: response.body.token, refresh_token: carol.refresh_token };
  });

  const refused: [string, unknown, number, string][] = [
    [
      'wrong current_password',
      { current_password: 'not my password', new_password: PASSWORD },
      401,
      'AUTH_INVALID_CREDENTIALS',
    ],
    ['new_password too short', { current_password: NEW_PASSWORD, new_password: '1234567' }, 400, 'VALIDATION_PASSWORD'],
    [
      'new_password of 257 characters',
      { current_password: NEW_PASSWORD, new_password: 'p'.repeat(257) },
      400,
      'VALIDATION_PASSWORD',
    ],
    [
      'current_password as an object',
      { current_password: { $ne: '' }, new_password: PASSWORD },
      400,
      'VALIDATION_FAILED',
    ],
    ['new_password missing', { current_password: NEW_PASSWORD }, 400, 'VALIDATION_FAILED'],
  ];
  for (const [name, body, status, code] of refused) {
    it(`${name} → ${status} ${code}`, async () => {
      assertError(await post('change-password', body, bearer(carol.token)), status, code);
    });
  }

  it('no bearer → 401 AUTH_REQUIRED; a stale one → 401 AUTH_INVALID_TOKEN', async () => {
    assertError(
      await post('change-password', { current_password: NEW_PASSWORD, new_password: PASSWORD }),
      401,
      'AUTH_REQUIRED',
    );
    assertError(
      await post('change-password', { current_password: NEW_PASSWORD, new_password: PASSWORD }, bearer('x.y.z')),
      401,
      'AUTH_INVALID_TOKEN',
    );
  });

  it('revoke_sessions_on_password_change: change ends the other sessions, reset ends all of them', async () => {
    await patchSettings(server, project, { revoke_sessions_on_password_change: true });
    try {
      const other = await logIn(server, project, 'carol@example.com', NEW_PASSWORD);
      const response = await post(
        'change-password',
        { current_password: NEW_PASSWORD, new_password: PASSWORD },
        bearer(carol.token),
      );
      assert.equal(response.status, 200);
      assertError(await post('refresh', { refresh_token: other.refresh_token }), 401, 'AUTH_INVALID_REFRESH_TOKEN');
      const own = await post('refresh', { refresh_token: carol.refresh_token });
      assert.equal(own.status, 200, 'the session that changed the password goes on');
      const token = await resetTokenFor('carol@example.com');
      assert.equal((await post('reset-password', { token, new_password: NEW_PASSWORD })).status, 200);
      assertError(await post('refresh', { refresh_token: carol.refresh_token }), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    } finally {
      await patchSettings(server, project, { revoke_sessions_on_password_change: false });
    }
  });
});
