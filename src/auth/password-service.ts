/**
 * Passwords after signup: change (signed in), forgot (mails a reset link) and reset (with
 * the mailed token). Every change bumps the password version, which ends the user's older
 * access tokens and unused reset tokens; refresh tokens survive (service §3, §5.2) unless
 * the project asked otherwise: `revoke_sessions_on_password_change`, or
 * `require_verified_email` when a reset claims a never-verified account.
 */
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { Row } from '../store/types.js';
import { isEmail } from '../tables/column-schema.js';
import { accessTokenFor, appNameOf, mailFromOf, type AuthDeps } from './auth-deps.js';
import { BODIES, parseBody } from './auth-bodies.js';
import type { MailRequest, ResolvedMail } from '../email/mail-request-worker.js';
import { resetMail } from './auth-emails.js';
import { checkPasswordLength } from './password-policy.js';
import { consumeOneTimeToken, invalidOneTimeToken, issueOneTimeToken, peekOneTimeToken } from './one-time-tokens.js';
import { appendToken, checkRedirectUrl } from './redirect-url.js';
import { revokeUserSessions } from './sessions.js';
import { findUserByEmail, findUserById, openAuthTable, replacePassword } from './users.js';

const FORGOT_MESSAGE = 'If an account with this email exists, a password reset link is on its way.';

/** The mail-request kind forgot-password queues; `resolveResetRequest` turns it into a mail. */
export const RESET_REQUEST_KIND = 'reset-password';

/** Change, forgot and reset password. */
export class PasswordService {
  constructor(private readonly deps: AuthDeps) {}

  /**
   * Changes the bearer's password; returns a new access token for the same session. Throws
   * AUTH_NOT_CONFIGURED, AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED, VALIDATION_FAILED,
   * VALIDATION_PASSWORD, RATE_LIMITED, AUTH_INVALID_CREDENTIALS (wrong current password).
   */
  async changePassword(
    state: ProjectState,
    bearerToken: string | undefined,
    body: unknown,
  ): Promise<{ token: string; user: Row }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const { user, session } = await this.deps.tokens.verifyBearer(state, bearerToken, auth);
    const input = parseBody(BODIES.changePassword, body);
    checkPasswordLength(input.new_password, state.settings.min_password_length);
    // Guessing the current password with a stolen token counts like failed logins.
    await this.deps.limits.takeLoginAttempt(state, user.email);
    if (!(await this.deps.hasher.verify(user.passwordHash, input.current_password))) {
      throw new AppError('AUTH_INVALID_CREDENTIALS', {
        message: 'current_password is wrong.',
        suggestion: `Send the current password, or use POST /p/${state.project.id}/auth/forgot-password.`,
      });
    }
    await this.deps.limits.refundLoginAttempt(state, user.email);
    const passwordHash = await this.deps.hasher.hash(input.new_password);
    const nowMs = this.deps.clock.now();
    const updated = await auth.db.transaction(async (tx) => {
      const changed = await replacePassword(
        tx,
        auth.table,
        user.id,
        passwordHash,
        user.passwordVersion,
        new Date(nowMs).toISOString(),
      );
      if (!changed)
        throw new AppError('AUTH_INVALID_TOKEN', { message: 'The password was changed by another request meanwhile.' });
      if (state.settings.revoke_sessions_on_password_change) await revokeUserSessions(tx, user.id, nowMs, session.id);
      return changed;
    });
    const token = await accessTokenFor(state, updated.id, session.id, updated.passwordVersion, nowMs);
    return { token, user: updated.user };
  }

  /**
   * Stores the request durably, then answers, the same for every email: checks the body and
   * `redirect_url` (before any lookup), counts the mail against the per-email limit, and
   * writes one mail request (no user lookup: the same work for a known and an unknown email).
   * The request worker later resolves it with `resolveResetRequest`. Past the per-email limit
   * nothing is stored, yet the answer stays 200: a 429 would reveal the account.
   * Throws AUTH_NOT_CONFIGURED, VALIDATION_FAILED, VALIDATION_REDIRECT_URL.
   */
  async forgotPassword(state: ProjectState, body: unknown): Promise<{ message: string }> {
    await openAuthTable(this.deps.schemas, state.project.id);
    const input = parseBody(BODIES.forgotPassword, body);
    // Checked now (a refusal is the caller's 400); stored as sent and checked again when resolved.
    checkRedirectUrl(input.redirect_url, state.settings.allowed_redirect_origins, state.project.id);
    const email = input.email.toLowerCase();
    // No account can hold an address signup refuses (a line break in it would also be refused
    // by the mail queue as a header injection): nothing to store, and the same 200.
    if (!isEmail(email)) return { message: FORGOT_MESSAGE };
    if ((await this.deps.limits.takeMail(state, email)) === 0) {
      const from = mailFromOf(state);
      await this.deps.mail.enqueueRequest({
        projectId: state.project.id,
        kind: RESET_REQUEST_KIND,
        email,
        payload: { redirect_url: input.redirect_url },
        ...(from !== undefined && { from }),
      });
    }
    return { message: FORGOT_MESSAGE };
  }

  /**
   * Turns a stored forgot-password request into its reset mail: undefined (nothing to send)
   * when no user has the email, the auth table is gone, or the redirect origin is no longer
   * allowed. Storage errors propagate (the request worker retries).
   */
  async resolveResetRequest(state: ProjectState, request: MailRequest): Promise<ResolvedMail | undefined> {
    let redirect: URL;
    try {
      redirect = checkRedirectUrl(
        request.payload.redirect_url,
        state.settings.allowed_redirect_origins,
        state.project.id,
      );
    } catch {
      return undefined;
    }
    const auth = await openAuthTable(this.deps.schemas, state.project.id).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'AUTH_NOT_CONFIGURED') return undefined;
      throw error;
    });
    const user = auth && (await findUserByEmail(auth.db, auth.table, request.email));
    if (!auth || !user) return undefined;
    const token = await issueOneTimeToken(auth.db, 'reset', user.id, user.passwordVersion, this.deps.clock.now());
    return { to: user.email, ...resetMail(appNameOf(state), appendToken(redirect, token)) };
  }

  /**
   * Sets a new password with a reset token (single use, 1 hour, dead once the password
   * changed otherwise); also marks the email verified, since the mail reached its owner.
   * Sessions survive (only older access tokens die), unless `revoke_sessions_on_password_change`
   * is on, or `require_verified_email` is on and the email was never verified (see below).
   * Throws AUTH_NOT_CONFIGURED, VALIDATION_FAILED, VALIDATION_PASSWORD, AUTH_INVALID_ONE_TIME_TOKEN.
   */
  async resetPassword(state: ProjectState, body: unknown): Promise<{ message: string }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const input = parseBody(BODIES.resetPassword, body);
    checkPasswordLength(input.new_password, state.settings.min_password_length);
    // Fail fast on a bad token before spending an argon2 hash on it.
    if (!(await peekOneTimeToken(auth.db, 'reset', input.token, this.deps.clock.now()))) throw invalidOneTimeToken();
    const passwordHash = await this.deps.hasher.hash(input.new_password);
    const nowMs = this.deps.clock.now();
    await auth.db.transaction(async (tx) => {
      const grant = await consumeOneTimeToken(tx, 'reset', input.token, nowMs);
      const before = grant && (await findUserById(tx, auth.table, grant.userId));
      const changed =
        before &&
        (await replacePassword(
          tx,
          auth.table,
          before.id,
          passwordHash,
          grant.passwordVersion,
          new Date(nowMs).toISOString(),
          { verifyEmail: true },
        ));
      if (!changed) throw invalidOneTimeToken();
      // Whoever signed up with an unproven email (a squatter) must not stay signed in once its
      // owner claims the account; but only where the project asked for proven emails, since by
      // default (service §3, §5.2) a reset leaves refresh tokens valid.
      const claimsAccount = !before.emailVerified && state.settings.require_verified_email;
      if (state.settings.revoke_sessions_on_password_change || claimsAccount)
        await revokeUserSessions(tx, changed.id, nowMs);
    });
    return { message: 'Password updated. Sign in with the new password.' };
  }
}
