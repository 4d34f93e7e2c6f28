/**
 * Email verification (tables with `verify_email: true`): the mail sent at signup and on
 * request, and the link's landing endpoint. Tokens live 24 hours and work once.
 */
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { Row } from '../store/types.js';
import { appNameOf, mailFromOf, type AuthDeps } from './auth-deps.js';
import { BODIES, parseBody } from './auth-bodies.js';
import { verificationMail } from './auth-emails.js';
import { rateLimited } from './auth-rate-limits.js';
import { consumeOneTimeToken, invalidOneTimeToken, issueOneTimeToken } from './one-time-tokens.js';
import { markEmailVerified, openAuthTable, type AuthTable, type StoredUser } from './users.js';

/** Sends verification mails and checks their tokens. */
export class VerificationService {
  constructor(private readonly deps: AuthDeps) {}

  /**
   * Issues a verification token and queues its mail, unless the per-email mail limit is
   * reached. Returns 0 when queued, else the seconds until another mail may go out.
   */
  async sendVerification(state: ProjectState, auth: AuthTable, user: StoredUser): Promise<number> {
    const retryAfter = await this.deps.limits.takeMail(state, user.email);
    if (retryAfter > 0) return retryAfter;
    const token = await issueOneTimeToken(auth.db, 'verify', user.id, user.passwordVersion, this.deps.clock.now());
    // Built from PUBLIC_URL only: request headers (Host, X-Forwarded-Host) never shape a link.
    const link =
      `${this.deps.publicUrl}/p/${encodeURIComponent(state.project.id)}` +
      `/auth/verify?token=${encodeURIComponent(token)}`;
    const mail = verificationMail(appNameOf(state), link);
    const from = mailFromOf(state);
    await this.deps.mail.enqueue({
      projectId: state.project.id,
      to: user.email,
      ...mail,
      ...(from !== undefined && { from }),
    });
    return 0;
  }

  /**
   * GET verify?token=: marks the token's user verified. Throws AUTH_NOT_CONFIGURED (no auth
   * table, or verification off), VALIDATION_FAILED, AUTH_INVALID_ONE_TIME_TOKEN.
   */
  async verify(state: ProjectState, query: unknown): Promise<{ message: string; user: Row }> {
    const auth = await openVerifyingTable(this.deps, state);
    const { token } = parseBody(BODIES.verify, query);
    const nowMs = this.deps.clock.now();
    const user = await auth.db.transaction(async (tx) => {
      const grant = await consumeOneTimeToken(tx, 'verify', token, nowMs);
      const verified = grant && (await markEmailVerified(tx, auth.table, grant.userId, new Date(nowMs).toISOString()));
      if (!verified) throw invalidOneTimeToken();
      return verified;
    });
    return { message: 'Email verified.', user: user.user };
  }

  /**
   * POST resend-verification for the bearer's user. Throws AUTH_NOT_CONFIGURED, AUTH_*
   * token errors, AUTH_ALREADY_VERIFIED, RATE_LIMITED (per-email mail limit).
   */
  async resend(state: ProjectState, bearerToken: string | undefined): Promise<{ message: string }> {
    const auth = await openVerifyingTable(this.deps, state);
    const { user } = await this.deps.tokens.verifyBearer(state, bearerToken, auth);
    if (user.emailVerified) throw new AppError('AUTH_ALREADY_VERIFIED');
    const retryAfter = await this.sendVerification(state, auth, user);
    if (retryAfter > 0) throw rateLimited(retryAfter, 'Too many mails to this email address in the last hour.');
    return { message: 'Verification email sent.' };
  }
}

async function openVerifyingTable(deps: AuthDeps, state: ProjectState): Promise<AuthTable> {
  const auth = await openAuthTable(deps.schemas, state.project.id);
  if (!auth.verifyEmail) {
    throw new AppError('AUTH_NOT_CONFIGURED', {
      message: `Email verification is off: the auth table "${auth.table.name}" has verify_email false.`,
      suggestion: `Set "verify_email": true with PUT /p/${state.project.id}/v1/tables/${auth.table.name}.`,
    });
  }
  return auth;
}
