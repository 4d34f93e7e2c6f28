/**
 * Passwords after signup: change (signed in), forgot (mails a reset link) and reset (with
 * the mailed token). Every change bumps the password version, which ends the user's older
 * access tokens and unused reset tokens; refresh tokens survive unless the project's
 * `revoke_sessions_on_password_change` is on, or a reset claims a never-verified account.
 */
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { Row } from '../store/types.js';
import { checkPasswordLength } from '../tables/row-service.js';
import { accessTokenFor, appNameOf, mailFromOf, type AuthDeps } from './auth-deps.js';
import { BODIES, parseBody } from './auth-bodies.js';
import { resetMail } from './auth-emails.js';
import { consumeOneTimeToken, invalidOneTimeToken, issueOneTimeToken, peekOneTimeToken } from './one-time-tokens.js';
import { appendToken, checkRedirectUrl } from './redirect-url.js';
import { revokeUserSessions } from './sessions.js';
import { findUserByEmail, findUserById, openAuthTable, replacePassword, type AuthTable } from './users.js';

const FORGOT_MESSAGE = 'If an account with this email exists, a password reset link is on its way.';

/** Change, forgot and reset password. */
export class PasswordService {
  /** Reset mails being prepared after their request was answered; awaited on shutdown. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: AuthDeps) {}

  /**
   * Changes the bearer's password; returns a new access token for the same session. Throws
   * AUTH_NOT_CONFIGURED, AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED, VALIDATION_FAILED,
   * VALIDATION_PASSWORD, RATE_LIMITED, AUTH_INVALID_CREDENTIALS (wrong current password).
   */
  async changePassword(state: ProjectState, bearerToken: string | undefined, body: unknown): Promise<{ token: string; user: Row }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const { user, session } = await this.deps.tokens.verifyBearer(state, bearerToken, auth);
    const input = parseBody(BODIES.changePassword, body);
    checkPasswordLength(input.new_password, state.settings.min_password_length);
    // Guessing the current password with a stolen token counts like failed logins.
    await this.deps.limits.takeLoginAttempt(state, user.email);
    if (!(await this.deps.hasher.verify(user.passwordHash, input.current_password))) {
      throw new AppError('AUTH_INVALID_CREDENTIALS', { message: 'current_password is wrong.', suggestion: 'Send the current password, or use POST /p/{id}/auth/forgot-password.' });
    }
    await this.deps.limits.refundLoginAttempt(state, user.email);
    const passwordHash = await this.deps.hasher.hash(input.new_password);
    const nowMs = this.deps.clock.now();
    const updated = await auth.db.transaction(async (tx) => {
      const changed = await replacePassword(tx, auth.table, user.id, passwordHash, user.passwordVersion, new Date(nowMs).toISOString());
      if (!changed) throw new AppError('AUTH_INVALID_TOKEN', { message: 'The password was changed by another request meanwhile.' });
      if (state.settings.revoke_sessions_on_password_change) await revokeUserSessions(tx, user.id, nowMs, session.id);
      return changed;
    });
    const token = await accessTokenFor(state, updated.id, session.id, updated.passwordVersion, nowMs);
    return { token, user: updated.user };
  }

  /**
   * Answers at once, the same for every email: checks the body and `redirect_url` (before
   * any lookup), counts the mail against the per-email limit, then looks the user up and
   * queues the reset mail in the background, so the answer's timing says nothing about the
   * email. `onDeliveryError` hears of background failures. Throws AUTH_NOT_CONFIGURED,
   * VALIDATION_FAILED, VALIDATION_REDIRECT_URL.
   */
  async forgotPassword(state: ProjectState, body: unknown, onDeliveryError: (error: unknown) => void): Promise<{ message: string }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const input = parseBody(BODIES.forgotPassword, body);
    const redirect = checkRedirectUrl(input.redirect_url, state.settings.allowed_redirect_origins);
    const email = input.email.toLowerCase();
    // Past the limit nothing is sent, yet the answer stays 200: a 429 would reveal the account.
    if ((await this.deps.limits.takeMail(state, email)) === 0) {
      const work = this.deliverReset(state, auth, email, redirect).catch(onDeliveryError);
      this.pending.add(work);
      void work.finally(() => this.pending.delete(work));
    }
    return { message: FORGOT_MESSAGE };
  }

  /**
   * Sets a new password with a reset token (single use, 1 hour, dead once the password
   * changed otherwise); also marks the email verified, since the mail reached its owner. When
   * the email was not verified before, every session of the user ends (see below).
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
      const changed = before && (await replacePassword(tx, auth.table, before.id, passwordHash, grant.passwordVersion, new Date(nowMs).toISOString(), true));
      if (!changed) throw invalidOneTimeToken();
      // Whoever signed up with an unproven email (a squatter) must not stay signed in once its owner claims the account.
      const claimsAccount = !before.emailVerified;
      if (state.settings.revoke_sessions_on_password_change || claimsAccount) await revokeUserSessions(tx, changed.id, nowMs);
    });
    return { message: 'Password updated. Sign in with the new password.' };
  }

  /** Waits for reset mails still being prepared (call before closing storage). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private async deliverReset(state: ProjectState, auth: AuthTable, email: string, redirect: URL): Promise<void> {
    const user = await findUserByEmail(auth.db, auth.table, email);
    if (!user) return;
    const token = await issueOneTimeToken(auth.db, 'reset', user.id, user.passwordVersion, this.deps.clock.now());
    const mail = resetMail(appNameOf(state), appendToken(redirect, token));
    const from = mailFromOf(state);
    await this.deps.mail.enqueue({ projectId: state.project.id, to: user.email, ...mail, ...(from !== undefined && { from }) });
  }
}
