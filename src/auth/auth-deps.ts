/**
 * What the auth flows share: their ports and settings, and small helpers every flow uses
 * (the app name and sender of mails, minting an access token for a session).
 */
import type { MailQueue } from '../email/mail-queue.js';
import type { Clock } from '../lib/clock.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { RowService } from '../tables/row-service.js';
import type { SchemaService } from '../tables/schema-service.js';
import { signAccessToken } from './access-tokens.js';
import type { AuthRateLimits } from './auth-rate-limits.js';
import type { TokenVerifier } from './token-verifier.js';

/** The ports and settings of the auth flows. */
export interface AuthDeps {
  readonly schemas: SchemaService;
  readonly rows: RowService;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly mail: MailQueue;
  readonly limits: AuthRateLimits;
  readonly tokens: TokenVerifier;
  /** PUBLIC_URL without a trailing slash: the only base of links in mails. */
  readonly publicUrl: string;
}

/** The name mails use for the project: its `app_name` setting, else the project's name. */
export function appNameOf(state: ProjectState): string {
  return state.settings.app_name ?? state.project.name;
}

/** The From header for the project's mails, or undefined for the server default (EMAIL_FROM). */
export function mailFromOf(state: ProjectState): string | undefined {
  return state.settings.email_from ?? undefined;
}

/** Mints an access token for a user's session at `issuedAtMs`. */
export function accessTokenFor(
  state: ProjectState,
  userId: string,
  sessionId: string,
  passwordVersion: number,
  issuedAtMs: number,
): Promise<string> {
  return signAccessToken(state, { userId, sessionId, passwordVersion, issuedAt: Math.floor(issuedAtMs / 1000) });
}
