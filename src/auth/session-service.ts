/**
 * Signing in and out: signup, login, refresh, me, logout. Each flow is parse → check →
 * one storage transaction where it writes → a plain response object (contract §5).
 */
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { Executor, Row } from '../store/types.js';
import { accessTokenFor, type AuthDeps } from './auth-deps.js';
import { BODIES, parseBody } from './auth-bodies.js';
import { createSession, refreshSession, revokeSession } from './sessions.js';
import { createSignupUser } from './signup.js';
import { findUserByEmail, findUserById, openAuthTable, type AuthTable, type StoredUser } from './users.js';
import type { VerificationService } from './verification-service.js';

/** The answer of signup and login. */
export interface SignedIn {
  readonly token: string;
  readonly refresh_token: string;
  readonly user: Row;
}

/** Signup, login, refresh, me and logout. */
export class SessionService {
  constructor(
    private readonly deps: AuthDeps,
    private readonly verification: VerificationService,
  ) {}

  /**
   * Creates a user (the auth table's create rule applies) and signs them in; queues the
   * verification mail when the table verifies emails. Throws AUTH_NOT_CONFIGURED,
   * VALIDATION_*, FORBIDDEN, AUTH_EMAIL_TAKEN, CONFLICT_*.
   */
  async signUp(state: ProjectState, body: unknown, userAgent?: string): Promise<SignedIn> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const context = {
      projectId: state.project.id,
      caller: { kind: 'public' as const },
      minPasswordLength: state.settings.min_password_length,
    };
    const row = await createSignupUser(this.deps.schemas, this.deps.rows, context, body);
    const user = await findUserById(auth.db, auth.table, String(row.id));
    if (!user) throw new AppError('INTERNAL_ERROR', { message: 'The new user vanished before signup finished.' });
    const signedIn = await this.startSession(state, auth, user, userAgent);
    if (auth.verifyEmail) await this.verification.sendVerification(state, auth, user);
    return signedIn;
  }

  /**
   * Checks email and password and starts a session. Unknown email and wrong password answer
   * alike. Throws AUTH_NOT_CONFIGURED, VALIDATION_FAILED, RATE_LIMITED,
   * AUTH_INVALID_CREDENTIALS, AUTH_EMAIL_NOT_VERIFIED (only after the password matched).
   */
  async login(state: ProjectState, body: unknown, userAgent?: string): Promise<SignedIn> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const input = parseBody(BODIES.login, body);
    const email = input.email.toLowerCase();
    await this.deps.limits.takeLoginAttempt(state, email);
    const user = await findUserByEmail(auth.db, auth.table, email);
    // Unknown emails verify against a dummy hash, so both failures cost one argon2 verify.
    let matches: boolean;
    try {
      matches = user
        ? await this.deps.hasher.verify(user.passwordHash, input.password)
        : (await this.deps.hasher.verify(await this.deps.hasher.dummyHash(), input.password)) && false;
    } catch (error) {
      // The password was never checked (the hash queue was full: 503), so this was no failed attempt.
      await this.deps.limits.refundLoginAttempt(state, email);
      throw error;
    }
    if (!user || !matches) throw new AppError('AUTH_INVALID_CREDENTIALS');
    await this.deps.limits.refundLoginAttempt(state, email);
    if (state.settings.require_verified_email && !user.emailVerified) throw new AppError('AUTH_EMAIL_NOT_VERIFIED');
    return this.startSession(state, auth, user, userAgent);
  }

  /**
   * Exchanges a refresh token for a new access token (and, with rotation, a new refresh
   * token). With `require_verified_email`, an unverified user is refused like at login.
   * Throws AUTH_NOT_CONFIGURED, VALIDATION_FAILED, AUTH_INVALID_REFRESH_TOKEN,
   * AUTH_REFRESH_TOKEN_REUSED, AUTH_EMAIL_NOT_VERIFIED.
   */
  async refresh(state: ProjectState, body: unknown): Promise<{ token: string; refresh_token: string }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const { refresh_token: presented } = parseBody(BODIES.refresh, body);
    const refreshed = await refreshSession(auth.db, presented, {
      rotate: state.settings.refresh_token_rotation,
      ttlSeconds: state.settings.refresh_token_ttl,
      nowMs: this.deps.clock.now(),
      derivationKey: state.jwtSecret,
      // Checked inside the exchange, before rotation, so the refused token still works once the email is verified.
      ...(state.settings.require_verified_email && {
        admit: (tx: Executor, userId: string) => this.admitVerified(tx, auth, userId),
      }),
    });
    const user = await findUserById(auth.db, auth.table, refreshed.session.userId);
    if (!user) throw new AppError('AUTH_INVALID_REFRESH_TOKEN');
    // The current password version: refresh tokens survive a password change and mint tokens for the new one.
    const token = await accessTokenFor(
      state,
      user.id,
      refreshed.session.id,
      user.passwordVersion,
      refreshed.issuedAtMs,
    );
    return { token, refresh_token: refreshed.refreshToken };
  }

  /** The bearer's user. Throws AUTH_NOT_CONFIGURED, AUTH_INVALID_TOKEN, AUTH_TOKEN_EXPIRED. */
  async me(state: ProjectState, bearerToken: string | undefined): Promise<{ user: Row }> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const { user } = await this.deps.tokens.verifyBearer(state, bearerToken, auth);
    return { user: user.user };
  }

  /** Ends the bearer's session: its refresh token and access tokens stop working. Throws like `me`. */
  async logout(state: ProjectState, bearerToken: string | undefined): Promise<void> {
    const auth = await openAuthTable(this.deps.schemas, state.project.id);
    const { session } = await this.deps.tokens.verifyBearer(state, bearerToken, auth);
    await auth.db.transaction((tx) => revokeSession(tx, session.id, this.deps.clock.now()));
  }

  /**
   * Refuses an unverified user (require_verified_email gates
   * refresh like login, or a session from signup would outlive it).
   */
  private async admitVerified(tx: Executor, auth: AuthTable, userId: string): Promise<void> {
    const user = await findUserById(tx, auth.table, userId);
    if (user && !user.emailVerified) throw new AppError('AUTH_EMAIL_NOT_VERIFIED');
  }

  private async startSession(
    state: ProjectState,
    auth: AuthTable,
    user: StoredUser,
    userAgent?: string,
  ): Promise<SignedIn> {
    const nowMs = this.deps.clock.now();
    const { session, refreshToken } = await createSession(
      auth.db,
      user.id,
      state.settings.refresh_token_ttl,
      nowMs,
      userAgent,
    );
    const token = await accessTokenFor(state, user.id, session.id, user.passwordVersion, nowMs);
    return { token, refresh_token: refreshToken, user: user.user };
  }
}
