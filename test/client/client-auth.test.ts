/**
 * @rowbase/client auth against a started server: every `client.auth` method, the session it
 * keeps, the change listener, and errors carrying the catalogue code (contract §5, §10).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SessionEvent } from '../../packages/client/src/index.js';
import { bearer, PASSWORD, patchSettings, tokenIn, waitForMail } from '../helpers/auth-fixtures.js';
import { assertServerError, createClientProject, recordedClient, rejection } from '../helpers/client-project.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

describe('client.auth: sign up, sign in, me, sign out', () => {
  let project: TestProject;
  before(async () => {
    project = await createClientProject(server);
  });

  it('signUp creates the user, stores the session, tells listeners SIGNED_IN; the token works', async () => {
    const { client, sent } = recordedClient(server, project);
    const events: [SessionEvent, string | undefined][] = [];
    client.auth.onChange((session, event) => events.push([event, session?.user?.email]));
    const { user, session } = await client.auth.signUp({ email: 'Ada@Example.com', password: PASSWORD, name: 'Ada' });
    assert.equal(user.email, 'ada@example.com');
    assert.equal(user.name, 'Ada');
    assert.deepEqual(client.auth.session, session);
    assert.equal(client.auth.user?.id, user.id);
    assert.deepEqual(events, [['SIGNED_IN', 'ada@example.com']]);
    assert.ok(
      session.expiresAt !== null && session.expiresAt > Date.now() + 3500_000,
      'expiry read from the token (default TTL 3600 s)',
    );
    assert.equal(sent[0]?.path, `/p/${project.id}/auth/signup`);
    assert.equal(sent[0]?.headers.get('authorization'), null, 'no bearer on signup');
    const me = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(session.token) });
    assert.equal(me.body.user.id, user.id);
  });

  it('signUp with a taken email → RowbaseError 409 AUTH_EMAIL_TAKEN; the session is unchanged', async () => {
    const { client } = recordedClient(server, project);
    assertServerError(
      await rejection(client.auth.signUp({ email: 'ada@example.com', password: PASSWORD })),
      409,
      'AUTH_EMAIL_TAKEN',
    );
    assert.equal(client.auth.session, null);
  });

  it('signUp with a short password → RowbaseError 400 VALIDATION_PASSWORD', async () => {
    const { client } = recordedClient(server, project);
    assertServerError(
      await rejection(client.auth.signUp({ email: 'short@example.com', password: '1234567' })),
      400,
      'VALIDATION_PASSWORD',
    );
  });

  it('signIn with a wrong password → RowbaseError 401 AUTH_INVALID_CREDENTIALS', async () => {
    const { client } = recordedClient(server, project);
    assertServerError(
      await rejection(client.auth.signIn({ email: 'ada@example.com', password: 'wrong password' })),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    assert.equal(client.auth.session, null);
  });

  it('signIn, then me() reads the user with the bearer and updates the session copy (USER_UPDATED)', async () => {
    const { client, sent } = recordedClient(server, project);
    const { user } = await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    // Change the user behind the SDK's back; me() must bring the new value.
    await server.request('PATCH', `/p/${project.id}/api/users/${user.id}`, {
      headers: project.admin,
      body: { name: 'Ada L.' },
    });
    const events: SessionEvent[] = [];
    client.auth.onChange((_session, event) => events.push(event));
    const me = await client.auth.me();
    assert.equal(me.name, 'Ada L.');
    assert.equal(client.auth.user?.name, 'Ada L.');
    assert.deepEqual(events, ['USER_UPDATED']);
    const meRequest = sent.at(-1)!;
    assert.equal(meRequest.headers.get('authorization'), `Bearer ${client.auth.session?.token}`);
    assert.equal(meRequest.headers.get('x-api-key'), project.publishableKey);
  });

  it('signOut ends the session on the server, clears it here (SIGNED_OUT); me() then → 401 AUTH_REQUIRED', async () => {
    const { client, sent } = recordedClient(server, project);
    const { session } = await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const events: SessionEvent[] = [];
    const unsubscribe = client.auth.onChange((_session, event) => events.push(event));
    await client.auth.signOut();
    assert.equal(sent.at(-1)?.path, `/p/${project.id}/auth/logout`);
    assert.equal(client.auth.session, null);
    assert.deepEqual(events, ['SIGNED_OUT']);
    const old = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(session.token) });
    assert.equal(old.body.error.code, 'AUTH_INVALID_TOKEN');
    const refresh = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: session.refreshToken },
    });
    assert.equal(refresh.body.error.code, 'AUTH_INVALID_REFRESH_TOKEN');
    assertServerError(await rejection(client.auth.me()), 401, 'AUTH_REQUIRED');
    unsubscribe();
    await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    assert.deepEqual(events, ['SIGNED_OUT'], 'an unsubscribed listener hears nothing');
  });

  it('signOut of a session already ended elsewhere resolves and clears the session', async () => {
    const { client } = recordedClient(server, project);
    const { session } = await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(session.token) });
    await client.auth.signOut();
    assert.equal(client.auth.session, null);
  });

  it('a listener that throws does not fail the call or silence the others; its error is logged', async () => {
    const { client } = recordedClient(server, project);
    const heard: SessionEvent[] = [];
    const logged: unknown[][] = [];
    client.auth.onChange(() => {
      throw new Error('listener bug');
    });
    client.auth.onChange((_session, event) => heard.push(event));
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    } finally {
      console.error = consoleError;
    }
    assert.deepEqual(heard, ['SIGNED_IN']);
    assert.equal(client.auth.session?.user?.email, 'ada@example.com');
    assert.equal(
      (logged[0]?.[1] as Error | undefined)?.message,
      'listener bug',
      'the listener error is logged, not swallowed',
    );
  });
});

describe('client.auth: passwords', () => {
  let project: TestProject;
  before(async () => {
    project = await createClientProject(server, {
      settings: { allowed_redirect_origins: ['https://app.example.com'] },
    });
  });

  it('changePassword keeps the session with the new token; the old token and password stop working', async () => {
    const { client } = recordedClient(server, project);
    const { session: first } = await client.auth.signUp({ email: 'grace@example.com', password: PASSWORD });
    const user = await client.auth.changePassword(PASSWORD, 'a brand new passphrase');
    assert.equal(user.email, 'grace@example.com');
    const next = client.auth.session!;
    assert.notEqual(next.token, first.token);
    assert.equal(next.refreshToken, first.refreshToken);
    assert.equal((await client.auth.me()).id, user.id, 'the new token works');
    const old = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(first.token) });
    assert.equal(old.body.error.code, 'AUTH_INVALID_TOKEN');
    const { client: other } = recordedClient(server, project);
    assertServerError(
      await rejection(other.auth.signIn({ email: 'grace@example.com', password: PASSWORD })),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    await other.auth.signIn({ email: 'grace@example.com', password: 'a brand new passphrase' });
  });

  it('changePassword with a wrong current password → 401 AUTH_INVALID_CREDENTIALS, session kept', async () => {
    const { client } = recordedClient(server, project);
    await client.auth.signUp({ email: 'wrongcurrent@example.com', password: PASSWORD });
    const session = client.auth.session;
    assertServerError(
      await rejection(client.auth.changePassword('not my password', 'another passphrase')),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    assert.deepEqual(client.auth.session, session);
  });

  it('forgotPassword to a foreign origin → 400 VALIDATION_REDIRECT_URL', async () => {
    const { client } = recordedClient(server, project);
    assertServerError(
      await rejection(client.auth.forgotPassword('grace@example.com', 'https://evil.example.net/reset')),
      400,
      'VALIDATION_REDIRECT_URL',
    );
  });

  it('forgotPassword mails a link; resetPassword with its token sets the password, once', async () => {
    const { client } = recordedClient(server, project);
    const message = await client.auth.forgotPassword('grace@example.com', 'https://app.example.com/reset');
    assert.match(message, /reset/i);
    const token = tokenIn(await waitForMail(server, project, 'grace@example.com'));
    assert.match(await client.auth.resetPassword(token, 'reset passphrase 42'), /password/i);
    const { user } = await client.auth.signIn({ email: 'grace@example.com', password: 'reset passphrase 42' });
    assert.equal(user.email, 'grace@example.com');
    assertServerError(
      await rejection(client.auth.resetPassword(token, 'yet another one')),
      400,
      'AUTH_INVALID_ONE_TIME_TOKEN',
    );
  });
});

describe('client.auth: email verification', () => {
  let project: TestProject;
  before(async () => {
    project = await createClientProject(server, { verifyEmail: true });
  });

  it('resendVerification mails a new link; verify(token) marks the user and updates the signed-in copy', async () => {
    const { client } = recordedClient(server, project);
    await client.auth.signUp({ email: 'lin@example.com', password: PASSWORD });
    await waitForMail(server, project, 'lin@example.com', 1);
    assert.match(await client.auth.resendVerification(), /sent/i);
    const token = tokenIn(await waitForMail(server, project, 'lin@example.com', 2));
    const events: SessionEvent[] = [];
    client.auth.onChange((_session, event) => events.push(event));
    const user = await client.auth.verify(token);
    assert.equal(user.email_verified, true);
    assert.equal(client.auth.user?.email_verified, true);
    assert.deepEqual(events, ['USER_UPDATED']);
    assertServerError(await rejection(client.auth.resendVerification()), 409, 'AUTH_ALREADY_VERIFIED');
    assertServerError(await rejection(client.auth.verify(token)), 400, 'AUTH_INVALID_ONE_TIME_TOKEN');
  });

  it('verify works signed out (the link opened in another browser) and leaves the session alone', async () => {
    const { client: signedUp } = recordedClient(server, project);
    await signedUp.auth.signUp({ email: 'mo@example.com', password: PASSWORD });
    const token = tokenIn(await waitForMail(server, project, 'mo@example.com'));
    const { client } = recordedClient(server, project);
    const user = await client.auth.verify(token);
    assert.equal(user.email, 'mo@example.com');
    assert.equal(user.email_verified, true);
    assert.equal(client.auth.session, null);
  });

  it('require_verified_email: signIn of an unverified user → 403 AUTH_EMAIL_NOT_VERIFIED', async () => {
    const { client } = recordedClient(server, project);
    await client.auth.signUp({ email: 'unverified@example.com', password: PASSWORD });
    await patchSettings(server, project, { require_verified_email: true });
    const { client: other } = recordedClient(server, project);
    assertServerError(
      await rejection(other.auth.signIn({ email: 'unverified@example.com', password: PASSWORD })),
      403,
      'AUTH_EMAIL_NOT_VERIFIED',
    );
    await patchSettings(server, project, { require_verified_email: false });
  });
});

describe('client.auth: rate limits', () => {
  let limited: TestServer;
  before(async () => {
    limited = await startTestServer({ RATE_LIMITS: 'on' });
  });
  after(() => limited.close());

  it('past a limit → RowbaseError 429 RATE_LIMITED carrying Retry-After (retryAfter) and the request id', async () => {
    const project = await createClientProject(limited, { settings: { rate_limits: { per_address_per_minute: 2 } } });
    const { client } = recordedClient(limited, project);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      assertServerError(
        await rejection(client.auth.signIn({ email: 'nobody@example.com', password: PASSWORD })),
        401,
        'AUTH_INVALID_CREDENTIALS',
      );
    }
    const error = await rejection(client.auth.signIn({ email: 'nobody@example.com', password: PASSWORD }));
    assertServerError(error, 429, 'RATE_LIMITED');
    assert.ok(
      typeof error.retryAfter === 'number' && error.retryAfter > 0 && error.retryAfter <= 60,
      `retryAfter ${error.retryAfter}`,
    );
    assert.ok(typeof error.requestId === 'string' && error.requestId.length > 0, 'the X-Request-Id of the answer');
  });
});
