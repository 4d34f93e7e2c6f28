/**
 * The auth module's front door: builds the flows over shared ports and hands the HTTP layer
 * one object. `buildServices` is the only caller.
 */
import type { MailRequest, ResolvedMail } from '../email/mail-request-worker.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { AuthDeps } from './auth-deps.js';
import { AuthRateLimits } from './auth-rate-limits.js';
import { PasswordService, RESET_REQUEST_KIND } from './password-service.js';
import type { RateLimiter } from './rate-limiter.js';
import { SessionService } from './session-service.js';
import { revokeAllSessions } from './sessions.js';
import { TokenVerifier } from './token-verifier.js';
import { VerificationService } from './verification-service.js';

/** Everything the auth endpoints and bearer-authenticated data requests need. */
export interface AuthService {
  /** Verifies bearer tokens (the data API's AccessTokenVerifier). */
  readonly tokens: TokenVerifier;
  readonly limits: AuthRateLimits;
  readonly sessions: SessionService;
  readonly passwords: PasswordService;
  readonly verification: VerificationService;
  /** Revokes every session of a project (rotate-jwt-secret with revoke_sessions). */
  revokeAllSessions(projectId: string): Promise<void>;
  /**
   * Resolves a mail request the auth flows queued (forgot-password) to its mail, or to
   * undefined when there is nothing to send (unknown email, unknown kind). Storage errors
   * propagate: the request worker retries.
   */
  resolveMailRequest(state: ProjectState, request: MailRequest): Promise<ResolvedMail | undefined>;
}

/** What the auth service is built from: the flows' ports, minus what it builds itself. */
export interface AuthServiceOptions extends Omit<AuthDeps, 'tokens' | 'limits'> {
  readonly rateLimiter: RateLimiter;
  /** False when RATE_LIMITS=off. */
  readonly rateLimitsEnabled: boolean;
}

/** Builds the auth service. */
export function buildAuthService(options: AuthServiceOptions): AuthService {
  const tokens = new TokenVerifier(options.schemas, options.clock);
  const limits = new AuthRateLimits(options.rateLimiter, { enabled: options.rateLimitsEnabled });
  const deps = { ...options, tokens, limits, publicUrl: options.publicUrl.replace(/\/+$/, '') };
  const verification = new VerificationService(deps);
  const passwords = new PasswordService(deps);
  return {
    tokens,
    limits,
    sessions: new SessionService(deps, verification),
    passwords,
    verification,
    async revokeAllSessions(projectId) {
      const schema = await options.schemas.schema(projectId);
      await schema.db.transaction((tx) => revokeAllSessions(tx, options.clock.now()));
    },
    async resolveMailRequest(state, request) {
      return request.kind === RESET_REQUEST_KIND ? passwords.resolveResetRequest(state, request) : undefined;
    },
  };
}
