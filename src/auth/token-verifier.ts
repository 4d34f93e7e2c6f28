/**
 * The AccessTokenVerifier behind `Authorization: Bearer`: a token is accepted only if its
 * signature, expiry, project, session (not revoked or expired) and password version all
 * check out. Per request that is one HMAC and two primary-key lookups (session, user), so
 * logout, password changes and revocations made by any process take effect at once.
 */
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { Caller } from '../tables/caller.js';
import type { SchemaService } from '../tables/schema-service.js';
import { invalidToken, readAccessToken, type AccessClaims } from './access-tokens.js';
import { SessionActivity } from './session-activity.js';
import { findLiveSession, type Session } from './sessions.js';
import { findUserById, type AuthTable, type StoredUser } from './users.js';

/** A verified bearer: the caller for rules plus what the auth flows need. */
export interface VerifiedBearer {
  readonly caller: Extract<Caller, { kind: 'user' }>;
  readonly claims: AccessClaims;
  readonly session: Session;
  readonly user: StoredUser;
}

/** Verifies access tokens against storage; fits the `AccessTokenVerifier` port of http/credentials.ts. */
export class TokenVerifier {
  /** Keeps sessions' `last_used_at` (at most one write a minute per session). */
  private readonly activity = new SessionActivity();

  constructor(
    private readonly schemas: SchemaService,
    private readonly clock: Clock,
  ) {}

  /** AccessTokenVerifier: the user caller. Throws AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED. */
  async verify(state: ProjectState, token: string): Promise<Extract<Caller, { kind: 'user' }>> {
    return (await this.verifyBearer(state, token)).caller;
  }

  /**
   * Like `verify`, returning the session and stored user too; `undefined` means no
   * Authorization header was sent. Throws AUTH_REQUIRED, AUTH_INVALID_TOKEN, AUTH_TOKEN_EXPIRED.
   */
  async verifyBearer(state: ProjectState, token: string | undefined, auth?: AuthTable): Promise<VerifiedBearer> {
    if (token === undefined) {
      throw new AppError('AUTH_REQUIRED', {
        message: 'This endpoint needs a signed-in user.',
        suggestion: 'Send Authorization: Bearer <access token from signup, login or refresh>.',
      });
    }
    const nowMs = this.clock.now();
    const claims = await readAccessToken(state, token, nowMs);
    const schema = auth ?? (await this.schemas.schema(state.project.id));
    const table = 'table' in schema ? schema.table : schema.authTable;
    if (!table) throw invalidToken('This project has no auth table, so it has no end-user tokens.');
    const session = await findLiveSession(schema.db, claims.sessionId, claims.userId, nowMs);
    if (!session) {
      // Logout and revocation end the refresh token too: refreshing cannot help here.
      throw invalidToken(
        'The session of this access token has ended (logout, revocation ' +
          'or expiry); its refresh token no longer works either.',
        `Sign in again with POST /p/${state.project.id}/auth/login.`,
      );
    }
    await this.activity.touch(schema.db, state.project.id, session.id, nowMs);
    const user = await findUserById(schema.db, table, claims.userId);
    // A password change or reset bumps the version: tokens minted for the old one stop here.
    if (!user || user.passwordVersion !== claims.passwordVersion) {
      throw invalidToken('The access token was issued before the password was changed, or its user is gone.');
    }
    return { caller: { kind: 'user', user: user.user, sessionId: session.id }, claims, session, user };
  }
}
