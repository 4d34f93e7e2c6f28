/**
 * What both baselines do with `Authorization: Bearer <access token>` (issue 26): what a careful
 * hand-written server does with an HS256 JWT, and no more. The key is imported once as a
 * CryptoKey (jose would import raw bytes on every call); every request verifies the signature
 * with the algorithm pinned and the expiry with jose, and then (in each server) reads the
 * session and the user's password version: nothing verified is remembered between requests.
 */
import { errors, jwtVerify } from 'jose';

/** The claims of a verified token that the servers check against storage. */
export interface BearerClaims {
  /** The user id (`sub`). */
  readonly userId: string;
  /** The session id (`sid`). */
  readonly sessionId: string;
  /** The password version the token was issued for (`pv`). */
  readonly passwordVersion: number;
}

/** The error envelope of a refused bearer, as Rowbase answers it (status 401). */
export interface BearerError {
  readonly error: { readonly code: string; readonly message: string; readonly suggestion: string };
}

/** Imports the project's JWT secret as an HMAC key, once at start-up. */
export function importJwtKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
}

/** The 401 answer with `code` and `message`. */
export function refused(code: string, message: string): BearerError {
  return { error: { code, message, suggestion: 'Sign in again.' } };
}

/**
 * Verifies the header's token (HS256 only, signature and expiry, the claims Rowbase issues).
 * Returns its claims, or the error to answer with 401; never throws.
 */
export async function verifyBearer(header: string | undefined, key: CryptoKey): Promise<BearerClaims | BearerError> {
  if (header === undefined || !header.startsWith('Bearer ')) return refused('AUTH_REQUIRED', 'Sign in first.');
  try {
    const { payload } = await jwtVerify(header.slice(7), key, {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    const { sub, sid, pv } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || !Number.isSafeInteger(pv))
      return refused('AUTH_INVALID_TOKEN', 'The access token lacks its claims.');
    return { userId: sub, sessionId: sid, passwordVersion: pv as number };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return refused('AUTH_TOKEN_EXPIRED', 'The access token has expired.');
    return refused('AUTH_INVALID_TOKEN', 'The access token is not valid.');
  }
}

/**
 * Whether a session row read for the token's `sid` and `sub` (with its user's password version)
 * lets the token through: found, not revoked, not expired, and the same password version.
 */
export function isCurrent(
  row: { expires_at: string; revoked_at: string | null; password_version: number } | undefined,
  claims: BearerClaims,
  nowIso: string,
): boolean {
  return (
    row !== undefined &&
    row.revoked_at === null &&
    row.expires_at > nowIso &&
    Number(row.password_version) === claims.passwordVersion
  );
}
