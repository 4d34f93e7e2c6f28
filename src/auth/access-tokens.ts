/**
 * End-user access tokens: JWTs signed with HS256 and the project's own secret (jose).
 * Claims: `sub` (user id), `project`, `sid` (session id), `pv` (password version), `iat`,
 * `exp`. This file checks what a token says; whether its session and password version are
 * still current is the verifier's job (`token-verifier.ts`).
 */
import { errors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';

/** What an access token asserts. */
export interface AccessClaims {
  readonly userId: string;
  readonly projectId: string;
  readonly sessionId: string;
  readonly passwordVersion: number;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

const encoder = new TextEncoder();

function keyOf(state: ProjectState): Uint8Array {
  return encoder.encode(state.jwtSecret);
}

/**
 * Signs an access token valid for the project's `access_token_ttl` from `issuedAt`
 * (seconds). The same inputs give the same token (HMAC is deterministic), which lets a
 * refresh replayed within the rotation grace period answer with the same pair.
 */
export async function signAccessToken(
  state: ProjectState,
  claims: { userId: string; sessionId: string; passwordVersion: number; issuedAt: number },
): Promise<string> {
  return new SignJWT({ project: state.project.id, sid: claims.sessionId, pv: claims.passwordVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuedAt(claims.issuedAt)
    .setExpirationTime(claims.issuedAt + state.settings.access_token_ttl)
    .sign(keyOf(state));
}

/**
 * Checks signature (HS256 only), expiry at `nowMs`, project and claim shapes.
 * Throws AUTH_TOKEN_EXPIRED for an expired but otherwise genuine token, else AUTH_INVALID_TOKEN.
 */
export async function readAccessToken(state: ProjectState, token: string, nowMs: number): Promise<AccessClaims> {
  let payload: Record<string, unknown>;
  try {
    // The algorithm is pinned: `none`, HS512 or RS256 tokens are refused before any key is used.
    ({ payload } = await jwtVerify(token, keyOf(state), {
      algorithms: ['HS256'],
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      throw new AppError('AUTH_TOKEN_EXPIRED');
    }
    throw (
      keySentAsBearer(token) ??
      invalidToken('The access token is malformed, tampered with, or signed with another key.')
    );
  }
  const { sub, project, sid, pv, iat, exp } = payload;
  if (
    typeof sub !== 'string' ||
    typeof sid !== 'string' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    !Number.isSafeInteger(pv)
  ) {
    throw invalidToken('The access token lacks the claims Rowbase issues.');
  }
  if (project !== state.project.id) throw invalidToken('The access token belongs to another project.');
  // Belt and braces next to the new secret: nothing issued before the last rotation passes.
  if (iat < Math.floor(Date.parse(state.jwtRotatedAt) / 1000))
    throw invalidToken('The access token was issued before the JWT secret was rotated.');
  return {
    userId: sub,
    projectId: project,
    sessionId: sid,
    passwordVersion: pv as number,
    issuedAt: iat,
    expiresAt: exp,
  };
}

/** AUTH_INVALID_TOKEN with a specific message (and suggestion, else the catalogue's). */
export function invalidToken(message: string, suggestion?: string): AppError {
  return new AppError('AUTH_INVALID_TOKEN', { message, ...(suggestion !== undefined && { suggestion }) });
}

// A project key in the Authorization header is a common first mistake: say which header it belongs in.
const KEY_HEADERS: readonly (readonly [prefix: string, kind: string, header: string])[] = [
  ['sk_', 'an admin key (sk_)', 'X-Admin-Key'],
  ['pk_', 'a publishable key (pk_)', 'X-Api-Key'],
  ['rb_', 'a platform key', 'X-Platform-Key'],
];

function keySentAsBearer(token: string): AppError | undefined {
  const match = KEY_HEADERS.find(([prefix]) => token.startsWith(prefix));
  if (!match) return undefined;
  const [, kind, header] = match;
  return invalidToken(
    `Authorization: Bearer carries ${kind}, not an access token.`,
    `Send the key in the ${header} header instead (${header}: ${match[0]}...); ` +
      'Authorization: Bearer is for the access token from signup, login or refresh.',
  );
}
