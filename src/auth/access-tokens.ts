/**
 * End-user access tokens: JWTs signed with HS256 and the project's own secret (jose).
 * Claims: `sub` (user id), `project`, `sid` (session id), `pv` (password version), `iat`,
 * `exp`. This file checks what a token says; whether its session and password version are
 * still current is the verifier's job (`token-verifier.ts`).
 */
import { createHash } from 'node:crypto';
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

/**
 * Each project's HMAC key, imported once per secret: given the secret's bytes, jose imports a
 * WebCrypto key on every call (`crypto.subtle.importKey`), which cost a hand-written server
 * 18–29 % of its signed-in throughput (issue 26). Keyed by the state object and checked
 * against its secret, so a rotated secret is imported afresh before any token is read with it.
 */
const importedKeys = new WeakMap<ProjectState, { readonly secret: string; readonly key: Promise<CryptoKey> }>();

function keyOf(state: ProjectState): Promise<CryptoKey> {
  const cached = importedKeys.get(state);
  if (cached?.secret === state.jwtSecret) return cached.key;
  const key = crypto.subtle.importKey(
    'raw',
    encoder.encode(state.jwtSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  importedKeys.set(state, { secret: state.jwtSecret, key });
  return key;
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
    .sign(await keyOf(state));
}

/**
 * Checks signature (HS256 only), expiry at `nowMs`, project and claim shapes.
 * Throws AUTH_TOKEN_EXPIRED for an expired but otherwise genuine token, else AUTH_INVALID_TOKEN.
 */
export async function readAccessToken(state: ProjectState, token: string, nowMs: number): Promise<AccessClaims> {
  const payload = verifiedAgain(state, token, nowMs) ?? (await verify(state, token, nowMs));
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

/**
 * Tokens whose signature was verified, by the SHA-256 of the token: a client sends the same
 * access token with every request until it expires, and WebCrypto's HMAC (jose) costs about
 * 100 µs a call where the rest of a signed-in GET costs less. An entry holds only what a
 * verification with the same secret would find again (the payload): it is used while the
 * project's secret is the one it was verified with, its expiry is checked on every use as
 * jose checks it, and whether the session and password version are still current is read
 * per request after this (token-verifier.ts), so a revoked session ends at once.
 */
const verified = new Map<
  string,
  { readonly state: ProjectState; readonly secret: string; readonly payload: Payload }
>();
/** About 1.5 MB at most; past it, the oldest tenth is dropped. */
const MAX_VERIFIED = 10_000;

type Payload = Record<string, unknown>;

/** The payload of a token verified before with the project's current secret; undefined if none. */
function verifiedAgain(state: ProjectState, token: string, nowMs: number): Payload | undefined {
  const entry = verified.get(digest(token));
  if (entry === undefined || entry.state !== state || entry.secret !== state.jwtSecret) return undefined;
  // jose's test (no clock tolerance): expired once `exp` is at or before now.
  if ((entry.payload.exp as number) <= Math.floor(nowMs / 1000)) throw new AppError('AUTH_TOKEN_EXPIRED');
  return entry.payload;
}

/** Verifies signature (HS256 only) and expiry with jose, and remembers a genuine token. */
async function verify(state: ProjectState, token: string, nowMs: number): Promise<Payload> {
  const secret = state.jwtSecret;
  let payload: Payload;
  try {
    // The algorithm is pinned: `none`, HS512 or RS256 tokens are refused before any key is used.
    ({ payload } = await jwtVerify(token, await keyOf(state), {
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
  // Only the claims Rowbase issues are re-checked from memory: a token with `nbf` goes to jose each time.
  if (payload.nbf === undefined && typeof payload.exp === 'number' && secret === state.jwtSecret) {
    if (verified.size >= MAX_VERIFIED) {
      let drop = MAX_VERIFIED / 10;
      for (const key of verified.keys()) {
        if (drop-- <= 0) break;
        verified.delete(key);
      }
    }
    verified.set(digest(token), { state, secret, payload });
  }
  return payload;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
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
