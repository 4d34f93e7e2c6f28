/**
 * What a password reset does to sessions (service §3 and §5.2, issue 10 item 1): by default
 * it bumps the password version, so older access tokens fail, and leaves refresh tokens
 * valid, verified account or not. A project that asked for more gets more:
 * `revoke_sessions_on_password_change` ends every session on any reset, and
 * `require_verified_email` ends every session when the reset claims a never-verified account
 * (someone may have signed up with the owner's address first).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import {
  bearer,
  createAuthProject,
  logIn,
  mailsTo,
  PASSWORD,
  signUp,
  tokenIn,
  waitForMail,
  type SignedUp,
} from '../helpers/auth-fixtures.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const NEW_PASSWORD = 'a brand new passphrase';
const ORIGIN = 'https://app.example.com';
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface Setup {
  readonly verifyEmail?: boolean;
  readonly settings?: Record<string, unknown>;
  /** Whether the account's email is verified (by the admin key) before the reset. */
  readonly verified: boolean;
}

/**
 * Signs a user up and in (two sessions), resets the password through the mailed link, and returns the old credentials.
 */
async function signUpThenReset(setup: Setup): Promise<{ project: TestProject; signup: SignedUp; login: SignedUp }> {
  const project = await createAuthProject(server, {
    verifyEmail: setup.verifyEmail ?? false,
    settings: { allowed_redirect_origins: [ORIGIN], ...setup.settings },
  });
  const email = 'ada@example.com';
  const signup = await signUp(server, project, email);
  if (setup.verified) {
    const verified = await server.request('PATCH', `/p/${project.id}/api/users/${signup.user.id}`, {
      headers: project.admin,
      body: { email_verified: true },
    });
    assert.equal(verified.status, 200, verified.text);
  }
  // Under require_verified_email an unverified user cannot log in: the signup session is the only one.
  const login =
    setup.verified || !setup.settings?.require_verified_email ? await logIn(server, project, email) : signup;
  const mailsBefore = (await mailsTo(server, project, email)).length;
  const forgot = await server.request('POST', `/p/${project.id}/auth/forgot-password`, {
    body: { email, redirect_url: `${ORIGIN}/reset` },
  });
  assert.equal(forgot.status, 200, forgot.text);
  const token = tokenIn(await waitForMail(server, project, email, mailsBefore + 1));
  const reset = await server.request('POST', `/p/${project.id}/auth/reset-password`, {
    body: { token, new_password: NEW_PASSWORD },
  });
  assert.equal(reset.status, 200, reset.text);
  return { project, signup, login };
}

const refresh = (project: TestProject, refreshToken: string) =>
  server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: refreshToken } });
const me = (project: TestProject, token: string) =>
  server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(token) });

/** Every old access token fails; the old password fails; the new one works. */
async function assertPasswordChanged(project: TestProject, old: SignedUp[]): Promise<void> {
  for (const session of old) assertError(await me(project, session.token), 401, 'AUTH_INVALID_TOKEN');
  assertError(
    await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'ada@example.com', password: PASSWORD },
    }),
    401,
    'AUTH_INVALID_CREDENTIALS',
  );
  const fresh = await logIn(server, project, 'ada@example.com', NEW_PASSWORD);
  assert.equal(fresh.user.email_verified, true, 'a used reset link proves the mailbox');
}

/** Each old refresh token still works, and mints an access token that /me accepts for the same user. */
async function assertSessionsSurvive(project: TestProject, old: SignedUp[]): Promise<void> {
  for (const session of old) {
    const refreshed = await refresh(project, session.refresh_token);
    assert.equal(refreshed.status, 200, `refresh after reset: ${refreshed.text}`);
    assert.deepEqual(Object.keys(refreshed.body).sort(), ['refresh_token', 'token']);
    const who = await me(project, refreshed.body.token);
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.user.id, session.user.id);
  }
}

async function assertSessionsEnded(project: TestProject, old: SignedUp[]): Promise<void> {
  for (const session of old)
    assertError(await refresh(project, session.refresh_token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
}

describe('reset-password and sessions, by project settings', () => {
  const survive: [string, Setup][] = [
    [
      'default settings, a new user as the service description walks through it (never verified, verify_email off)',
      { verified: false },
    ],
    ['default settings, a verified account', { verified: true }],
    ['verify_email on the table but no setting asked for more, never verified', { verifyEmail: true, verified: false }],
    [
      'require_verified_email on, a verified account',
      { verifyEmail: true, settings: { require_verified_email: true }, verified: true },
    ],
  ];
  for (const [name, setup] of survive) {
    it(`${name}: older access tokens → 401 AUTH_INVALID_TOKEN, every refresh token from before → 200`, async () => {
      const { project, signup, login } = await signUpThenReset(setup);
      await assertPasswordChanged(project, [signup, login]);
      await assertSessionsSurvive(project, [signup, login]);
    });
  }

  const ended: [string, Setup][] = [
    [
      "require_verified_email on, a never-verified account (a squatter's session must not outlive the owner's reset)",
      { verifyEmail: true, settings: { require_verified_email: true }, verified: false },
    ],
    [
      'revoke_sessions_on_password_change on, a verified account',
      { settings: { revoke_sessions_on_password_change: true }, verified: true },
    ],
    [
      'revoke_sessions_on_password_change on, a never-verified account',
      { settings: { revoke_sessions_on_password_change: true }, verified: false },
    ],
  ];
  for (const [name, setup] of ended) {
    it(`${name}: every refresh token from before → 401 AUTH_INVALID_REFRESH_TOKEN`, async () => {
      const { project, signup, login } = await signUpThenReset(setup);
      await assertSessionsEnded(project, [signup, login]);
      await assertPasswordChanged(project, [signup, login]);
      // The owner's own new session works.
      const owner = await logIn(server, project, 'ada@example.com', NEW_PASSWORD);
      assert.equal((await refresh(project, owner.refresh_token)).status, 200);
    });
  }

  it("require_verified_email: the squatter's refresh → 403 before the owner's reset, 401 after", async () => {
    const project = await createAuthProject(server, {
      verifyEmail: true,
      settings: { require_verified_email: true, allowed_redirect_origins: [ORIGIN] },
    });
    const squatter = await signUp(server, project, 'victim@example.com');
    assertError(await refresh(project, squatter.refresh_token), 403, 'AUTH_EMAIL_NOT_VERIFIED');
    const mailsBefore = (await mailsTo(server, project, 'victim@example.com')).length;
    assert.equal(
      (
        await server.request('POST', `/p/${project.id}/auth/forgot-password`, {
          body: { email: 'victim@example.com', redirect_url: `${ORIGIN}/reset` },
        })
      ).status,
      200,
    );
    const token = tokenIn(await waitForMail(server, project, 'victim@example.com', mailsBefore + 1));
    assert.equal(
      (
        await server.request('POST', `/p/${project.id}/auth/reset-password`, {
          body: { token, new_password: NEW_PASSWORD },
        })
      ).status,
      200,
    );
    assertError(await refresh(project, squatter.refresh_token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    assertError(await me(project, squatter.token), 401, 'AUTH_INVALID_TOKEN');
  });
});
