/**
 * Dashboard tokens (contract §12): the dashboard exchanges the platform key or a project's
 * admin key for a short-lived, revocable token and keeps only that in the page. A token is
 * `rbd_<id>.<secret>`; the system database keeps its id and a hash of its secret, so a stolen
 * database gives no usable token, and every use reads the row, so a sign-out on any process
 * sharing the database counts at once on all of them.
 *
 * A token has the powers of the key it came from, for as long as that key lasts: a project
 * token names the sk_ key (it dies when a rotation removes that key or its grace period ends,
 * and with the project), a platform token names the platform key's fingerprint (it dies when
 * the server runs with another PLATFORM_KEY).
 */
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { randomBase62 } from '../lib/random.js';
import { hashSecret, hashSecretBytes } from '../lib/secrets.js';
import { sql } from '../query/sql-tree.js';
import type { Database } from '../store/types.js';
import { col, DASHBOARD_SESSIONS } from '../store/system-tables.js';

/** How long a dashboard token lasts: a working day, the most contract §12 allows. */
export const DASHBOARD_TOKEN_TTL_SECONDS = 12 * 60 * 60;

/** The prefix that tells a dashboard token from keys (sk_, pk_, rb_) and access tokens. */
export const DASHBOARD_TOKEN_PREFIX = 'rbd_';

const TOKEN_PATTERN = /^rbd_([0-9A-Za-z]{16})\.([0-9A-Za-z]{40})$/;

/** What a token may do: everything the platform key may, or what one project's admin key may. */
export type DashboardScope =
  | { readonly kind: 'platform' }
  | { readonly kind: 'project'; readonly projectId: string; readonly keyId: string };

/** A token that checked out: its scope and when it ends. */
export interface DashboardGrant {
  readonly scope: DashboardScope;
  readonly expiresAt: string;
}

/** A token just made: the only moment its full value exists. */
export interface IssuedDashboardToken extends DashboardGrant {
  readonly token: string;
}

/** Issues, checks and revokes dashboard tokens in the system database. */
export class DashboardTokens {
  /** `platformKeyFingerprint` is the current platform key's (see PlatformKey.fingerprint). */
  constructor(
    private readonly system: Database,
    private readonly clock: Clock,
    private readonly platformKeyFingerprint: string,
  ) {}

  /** Makes a token for a scope whose key the caller has just proved. Also drops expired rows. */
  async issue(scope: DashboardScope): Promise<IssuedDashboardToken> {
    const id = randomBase62(16);
    const secret = randomBase62(40);
    const now = isoNow(this.clock);
    const expiresAt = new Date(this.clock.now() + DASHBOARD_TOKEN_TTL_SECONDS * 1000).toISOString();
    const project = scope.kind === 'project' ? scope : undefined;
    await this.system.transaction(async (tx) => {
      // Rows of ended tokens are of no use to anyone: sign-ins keep the table small.
      await tx.run({
        kind: 'delete',
        table: DASHBOARD_SESSIONS.table,
        where: { kind: 'compare', op: '<=', left: sql.column('expires_at'), right: sql.value(now, 'text') },
      });
      await tx.run({
        kind: 'insert',
        table: DASHBOARD_SESSIONS.table,
        columns: DASHBOARD_SESSIONS.columns,
        rows: [
          [
            id,
            hashSecret(secret),
            project?.projectId ?? null,
            project?.keyId ?? null,
            project ? null : this.platformKeyFingerprint,
            now,
            expiresAt,
            null,
          ],
        ],
      });
    });
    return { token: `${DASHBOARD_TOKEN_PREFIX}${id}.${secret}`, scope, expiresAt };
  }

  /**
   * The grant of a presented token. Throws AUTH_INVALID_TOKEN (malformed, unknown, signed
   * out, or made from a platform key the server no longer has) or AUTH_TOKEN_EXPIRED. Whether
   * a project token's sk_ key still lasts is for the caller to judge, on the project's state.
   */
  async verify(presented: string): Promise<DashboardGrant> {
    const match = TOKEN_PATTERN.exec(presented);
    if (!match) throw invalidToken('The X-Dashboard-Token header is not a dashboard token (rbd_<id>.<secret>).');
    const row = await this.system.first({
      kind: 'select',
      table: DASHBOARD_SESSIONS.table,
      columns: DASHBOARD_SESSIONS.columns,
      where: sql.eq('id', match[1]!),
    });
    // Found by its random id, then the secret compared in constant time: timing tells nothing about the secret.
    if (!row || !timingSafeEqual(hashSecretBytes(match[2]!), Buffer.from(String(row.secret_hash), 'hex'))) {
      throw invalidToken('This dashboard token is not known to the server.');
    }
    if (row.revoked_at !== null) throw invalidToken('This dashboard token was signed out.');
    if (String(row.expires_at) <= isoNow(this.clock)) {
      throw new AppError('AUTH_TOKEN_EXPIRED', {
        message:
          `This dashboard token expired at ${String(row.expires_at)} ` +
          `(dashboard tokens last ${DASHBOARD_TOKEN_TTL_SECONDS / 3600} hours).`,
        suggestion: SIGN_IN_AGAIN,
      });
    }
    const expiresAt = String(row.expires_at);
    if (row.project_id === null) {
      if (row.platform_key_fingerprint !== this.platformKeyFingerprint)
        throw invalidToken('This dashboard token was made from a platform key the server no longer has.');
      return { scope: { kind: 'platform' }, expiresAt };
    }
    return { scope: { kind: 'project', projectId: String(row.project_id), keyId: String(row.key_id) }, expiresAt };
  }

  /** Signs a token out: it stops working at once, on every process. Throws as `verify` does. */
  async revoke(presented: string): Promise<void> {
    await this.verify(presented);
    const id = TOKEN_PATTERN.exec(presented)![1]!;
    await this.system.run({
      kind: 'update',
      table: DASHBOARD_SESSIONS.table,
      set: [{ column: col(DASHBOARD_SESSIONS, 'revoked_at'), value: sql.value(isoNow(this.clock), 'text') }],
      where: sql.eq('id', id),
    });
  }
}

/** The suggestion of every refused dashboard token. */
export const SIGN_IN_AGAIN =
  'Sign in to the dashboard again: POST /v1/dashboard/sessions with your platform key or admin key gives a new token.';

/** AUTH_INVALID_TOKEN for a dashboard token, with `message`. */
export function invalidToken(message: string): AppError {
  return new AppError('AUTH_INVALID_TOKEN', { message, suggestion: SIGN_IN_AGAIN });
}
