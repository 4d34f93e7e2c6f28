/**
 * Reads credentials from request headers: the platform key, a project's admin (sk_) and
 * publishable (pk_) keys, and end-user bearer tokens (checked by the auth module's verifier).
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { KeyRecord } from '../projects/keys.js';
import type { PlatformKey } from '../projects/platform-key.js';
import type { ProjectRegistry, ProjectState } from '../projects/project-registry.js';
import type { Caller } from '../tables/caller.js';

/** Checks an end-user access token for a project; throws AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED. */
export interface AccessTokenVerifier {
  verify(state: ProjectState, token: string): Promise<Extract<Caller, { kind: 'user' }>>;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Throws AUTH_REQUIRED / AUTH_INVALID_KEY unless X-Platform-Key is the platform key. */
export function requirePlatformKey(request: FastifyRequest, platformKey: PlatformKey): void {
  const presented = header(request, 'x-platform-key');
  if (!presented) {
    throw new AppError('AUTH_REQUIRED', { message: 'The platform API needs the platform key.', suggestion: 'Send X-Platform-Key: <key printed at first start, or PLATFORM_KEY>.' });
  }
  if (!platformKey.matches(presented)) {
    throw new AppError('AUTH_INVALID_KEY', { message: 'The platform key is wrong.', suggestion: 'Use the key printed at first start or set through PLATFORM_KEY.' });
  }
}

/**
 * Returns the matched key record (a key in its grace period after a rotation has `expires_at`
 * set), or undefined when the caller sent the platform key, which has the admin key's powers
 * on every project (contract §12). Throws AUTH_REQUIRED / AUTH_INVALID_KEY unless X-Admin-Key
 * is a current sk_ key of the project or X-Platform-Key is the platform key.
 */
export function requireAdminKey(request: FastifyRequest, state: ProjectState, registry: ProjectRegistry): KeyRecord | undefined {
  if (presentsPlatformKey(request, registry)) return undefined;
  const presented = header(request, 'x-admin-key');
  if (!presented) {
    throw new AppError('AUTH_REQUIRED', { message: 'This endpoint needs the project admin key.', suggestion: "Send X-Admin-Key: sk_... (shown when the project was created or its keys rotated)." });
  }
  const key = registry.matchKey(state, presented);
  if (!key || key.type !== 'sk') throw invalidKey('X-Admin-Key', 'sk_');
  registry.noteKeyUsed(key);
  return key;
}

/**
 * For what both keys may read (the OpenAPI document): `admin` for the admin or platform key
 * (checked as `requireAdminKey` does), `public` for a current pk_ key in X-Api-Key. Throws
 * AUTH_REQUIRED without either, AUTH_INVALID_KEY for a wrong one. A bearer token is not a key:
 * it counts as none.
 */
export function requireAdminOrPublishableKey(request: FastifyRequest, state: ProjectState, registry: ProjectRegistry): 'admin' | 'public' {
  // An admin or platform key, when sent, decides (and is checked): a typo there never falls back to a pk_ key sent alongside.
  if (header(request, 'x-admin-key') !== undefined || header(request, 'x-platform-key') !== undefined) {
    requireAdminKey(request, state, registry);
    return 'admin';
  }
  const apiKey = header(request, 'x-api-key');
  if (apiKey === undefined) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'This endpoint needs the project admin key or its publishable key.',
      suggestion: 'Send X-Admin-Key: sk_... for the whole API, or X-Api-Key: pk_... for the API as an anonymous client sees it.',
    });
  }
  const key = registry.matchKey(state, apiKey);
  if (!key || key.type !== 'pk') throw invalidKey('X-Api-Key', 'pk_');
  registry.noteKeyUsed(key);
  return 'public';
}

/**
 * Like `requireAdminKey`, but refuses an admin key that a rotation has put in its grace
 * period. Throws AUTH_REQUIRED / AUTH_INVALID_KEY.
 */
export function requireCurrentAdminKey(request: FastifyRequest, state: ProjectState, registry: ProjectRegistry): KeyRecord | undefined {
  const key = requireAdminKey(request, state, registry);
  // A replaced key (maybe the leaked one) must not rotate the keys or the secret and lock the owner out.
  if (key !== undefined && key.expires_at !== null) {
    throw new AppError('AUTH_INVALID_KEY', {
      message: 'This admin key was replaced by a rotation and only works until its grace period ends; it cannot rotate keys or the JWT secret.',
      suggestion: 'Send the current admin key (the admin_key of the latest rotate-keys answer) in X-Admin-Key.',
    });
  }
  return key;
}

/**
 * Works out who calls the data API: admin key, bearer user, or pk_ client. Throws AUTH_*.
 * Answers at once for keys; only a bearer token is verified asynchronously (a promise).
 */
export function resolveCaller(request: FastifyRequest, state: ProjectState, registry: ProjectRegistry, tokens: AccessTokenVerifier | undefined): Caller | Promise<Caller> {
  if (presentsPlatformKey(request, registry)) return { kind: 'admin' };
  const adminKey = header(request, 'x-admin-key');
  if (adminKey !== undefined) {
    requireAdminKey(request, state, registry);
    return { kind: 'admin' };
  }
  const authorization = header(request, 'authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) {
      throw new AppError('AUTH_INVALID_TOKEN', { message: 'The Authorization header is not "Bearer <token>".', suggestion: 'Send Authorization: Bearer <access token from signup, login or refresh>.' });
    }
    if (!tokens) throw new AppError('AUTH_INVALID_TOKEN');
    return tokens.verify(state, match[1]!);
  }
  const apiKey = header(request, 'x-api-key');
  if (apiKey !== undefined) {
    const key = registry.matchKey(state, apiKey);
    if (!key || key.type !== 'pk') throw invalidKey('X-Api-Key', 'pk_');
    registry.noteKeyUsed(key);
    return { kind: 'public' };
  }
  throw new AppError('AUTH_REQUIRED');
}

/**
 * True when X-Platform-Key is the platform key; false when the header is absent. Throws
 * AUTH_INVALID_KEY for a wrong one: a presented credential is never silently ignored, so a
 * typo cannot fall through to a weaker key sent alongside.
 */
function presentsPlatformKey(request: FastifyRequest, registry: ProjectRegistry): boolean {
  const presented = header(request, 'x-platform-key');
  if (presented === undefined) return false;
  // Compared in constant time (hash, then timingSafeEqual), as on /v1/projects.
  if (registry.isPlatformKey(presented)) return true;
  throw new AppError('AUTH_INVALID_KEY', { message: 'The platform key is wrong.', suggestion: 'Use the key printed at first start or set through PLATFORM_KEY, or send the project admin key in X-Admin-Key instead.' });
}

function invalidKey(headerName: string, prefix: string): AppError {
  return new AppError('AUTH_INVALID_KEY', {
    message: `The ${headerName} is not a current ${prefix} key of this project.`,
    suggestion: `Send a current ${prefix} key of this project in ${headerName}; keys are shown when a project is created or its keys are rotated.`,
  });
}
