/**
 * Reads credentials from request headers: the platform key, a project's admin (sk_) and
 * publishable (pk_) keys, dashboard tokens (made from either of the first two, checked by
 * dashboard-token.ts) and end-user bearer tokens (checked by the auth module's verifier).
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { invalidToken, type DashboardGrant, type DashboardScope } from '../projects/dashboard-tokens.js';
import type { KeyRecord } from '../projects/keys.js';
import type { PlatformKey } from '../projects/platform-key.js';
import type { ProjectRegistry, ProjectState } from '../projects/project-registry.js';
import type { Caller } from '../tables/caller.js';
import { DASHBOARD_TOKEN_HEADER, dashboardGrantOf } from './dashboard-token.js';

/** Checks an end-user access token for a project; throws AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED. */
export interface AccessTokenVerifier {
  verify(state: ProjectState, token: string): Promise<Extract<Caller, { kind: 'user' }>>;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Throws AUTH_REQUIRED / AUTH_INVALID_KEY unless X-Platform-Key is the platform key or
 * X-Dashboard-Token a token made from it (AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED otherwise).
 */
export function requirePlatformKey(request: FastifyRequest, platformKey: PlatformKey): void {
  // A token sent is checked even beside a key: a presented credential is never silently ignored.
  const grant = dashboardGrantOf(request);
  const presented = header(request, 'x-platform-key');
  if (presented === undefined && grant !== undefined) {
    if (grant.scope.kind === 'platform') return;
    throw invalidToken(
      "This dashboard token was made from a project's admin key: it opens that project only, not the platform API.",
    );
  }
  if (!presented) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'The platform API needs the platform key.',
      suggestion: 'Send X-Platform-Key: <key printed at first start, or PLATFORM_KEY>.',
    });
  }
  if (!platformKey.matches(presented)) {
    throw new AppError('AUTH_INVALID_KEY', {
      message: 'The platform key is wrong.',
      suggestion: 'Use the key printed at first start or set through PLATFORM_KEY.',
    });
  }
}

/**
 * Returns the matched key record (a key in its grace period after a rotation has `expires_at`
 * set), or undefined when the caller sent the platform key, which has the admin key's powers
 * on every project (contract §12). A dashboard token stands for the key it was made from.
 * Throws AUTH_REQUIRED / AUTH_INVALID_KEY unless X-Admin-Key is a current sk_ key of the
 * project or X-Platform-Key is the platform key; AUTH_INVALID_TOKEN / AUTH_TOKEN_EXPIRED for a
 * dashboard token that is not (or no longer) good for this project.
 */
export function requireAdminKey(
  request: FastifyRequest,
  state: ProjectState,
  registry: ProjectRegistry,
): KeyRecord | undefined {
  const grant = dashboardGrantOf(request);
  if (presentsPlatformKey(request, registry)) return undefined;
  const presented = header(request, 'x-admin-key');
  if (presented === undefined && grant !== undefined) return keyOfGrant(grant, state, registry);
  if (!presented) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'This endpoint needs the project admin key.',
      suggestion: 'Send X-Admin-Key: sk_... (shown when the project was created or its keys rotated).',
    });
  }
  const key = registry.matchKey(state, presented);
  if (key?.type !== 'sk') throw invalidKey('X-Admin-Key', 'sk_');
  registry.noteKeyUsed(key);
  return key;
}

/**
 * For what both keys may read (the OpenAPI document): `admin` for the admin or platform key
 * or a dashboard token (checked as `requireAdminKey` does), `public` for a current pk_ key in X-Api-Key. Throws
 * AUTH_REQUIRED without either, AUTH_INVALID_KEY for a wrong one. A bearer token is not a key:
 * it counts as none.
 */
export function requireAdminOrPublishableKey(
  request: FastifyRequest,
  state: ProjectState,
  registry: ProjectRegistry,
): 'admin' | 'public' {
  // An admin or platform key, when sent, decides (and is checked):
  // a typo there never falls back to a pk_ key sent alongside.
  if (
    header(request, 'x-admin-key') !== undefined ||
    header(request, 'x-platform-key') !== undefined ||
    header(request, DASHBOARD_TOKEN_HEADER) !== undefined
  ) {
    requireAdminKey(request, state, registry);
    return 'admin';
  }
  const apiKey = header(request, 'x-api-key');
  if (apiKey === undefined) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'This endpoint needs the project admin key or its publishable key.',
      suggestion:
        'Send X-Admin-Key: sk_... for the whole API, or X-Api-Key: pk_... for the API as an anonymous client sees it.',
    });
  }
  const key = registry.matchKey(state, apiKey);
  if (key?.type !== 'pk') throw invalidKey('X-Api-Key', 'pk_');
  registry.noteKeyUsed(key);
  return 'public';
}

/**
 * Like `requireAdminKey`, but refuses an admin key that a rotation has put in its grace
 * period. Throws AUTH_REQUIRED / AUTH_INVALID_KEY.
 */
export function requireCurrentAdminKey(
  request: FastifyRequest,
  state: ProjectState,
  registry: ProjectRegistry,
): KeyRecord | undefined {
  const key = requireAdminKey(request, state, registry);
  // A replaced key (maybe the leaked one) must not rotate the keys or the secret and lock the owner out.
  if (key !== undefined && key.expires_at !== null) {
    throw new AppError('AUTH_INVALID_KEY', {
      message:
        'This admin key was replaced by a rotation and only works until ' +
        'its grace period ends; it cannot rotate keys or the JWT secret.',
      suggestion: 'Send the current admin key (the admin_key of the latest rotate-keys answer) in X-Admin-Key.',
    });
  }
  return key;
}

/**
 * Works out who calls the data API: admin key (or platform key, or a dashboard token made from
 * either), bearer user, or pk_ client. Throws AUTH_*.
 * Answers at once for keys; only a bearer token is verified asynchronously (a promise).
 */
export function resolveCaller(
  request: FastifyRequest,
  state: ProjectState,
  registry: ProjectRegistry,
  tokens: AccessTokenVerifier | undefined,
): Caller | Promise<Caller> {
  // A dashboard token is an admin credential: checked first, so it is never ignored beside another.
  if (request.dashboardToken !== null) {
    requireAdminKey(request, state, registry);
    return { kind: 'admin' };
  }
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
      throw new AppError('AUTH_INVALID_TOKEN', {
        message: 'The Authorization header is not "Bearer <token>".',
        suggestion: 'Send Authorization: Bearer <access token from signup, login or refresh>.',
      });
    }
    if (!tokens) throw new AppError('AUTH_INVALID_TOKEN');
    return tokens.verify(state, match[1]!);
  }
  const apiKey = header(request, 'x-api-key');
  if (apiKey !== undefined) {
    const key = registry.matchKey(state, apiKey);
    if (key?.type !== 'pk') throw invalidKey('X-Api-Key', 'pk_');
    registry.noteKeyUsed(key);
    return { kind: 'public', keyId: key.id };
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
  throw new AppError('AUTH_INVALID_KEY', {
    message: 'The platform key is wrong.',
    suggestion:
      'Use the key printed at first start or set through PLATFORM_KEY, ' +
      'or send the project admin key in X-Admin-Key instead.',
  });
}

/**
 * The key a dashboard token stands for on this project: undefined for a platform token (every
 * project), the sk_ key it was made from while that key lasts. Throws AUTH_INVALID_TOKEN.
 */
function keyOfGrant(grant: DashboardGrant, state: ProjectState, registry: ProjectRegistry): KeyRecord | undefined {
  if (grant.scope.kind === 'platform') return undefined;
  if (grant.scope.projectId !== state.project.id) {
    throw invalidToken(
      'This dashboard token was made from the admin key of another ' +
        `project; it opens that project only, not "${state.project.id}".`,
    );
  }
  const key = registry.liveKey(state, grant.scope.keyId);
  // The token lasts as long as the key it came from: a rotation that ends the key ends its tokens.
  if (key?.type !== 'sk') throw invalidToken('The admin key this dashboard token was made from has been rotated out.');
  registry.noteKeyUsed(key);
  return key;
}

/**
 * What a caller proves to get a dashboard token (POST /v1/dashboard/sessions): the platform
 * key in X-Platform-Key (no `projectId`), or in X-Admin-Key an sk_ key of `projectId`'s project.
 * A dashboard token does not count: tokens are made from keys only, so none outlives its 12
 * hours by renewing itself. Throws AUTH_REQUIRED, AUTH_INVALID_KEY, VALIDATION_FAILED and
 * PROJECT_NOT_FOUND.
 */
export async function proveKeyForDashboard(
  request: FastifyRequest,
  registry: ProjectRegistry,
  projectId: string | undefined,
): Promise<DashboardScope> {
  if (header(request, 'x-platform-key') !== undefined) {
    presentsPlatformKey(request, registry);
    if (projectId !== undefined) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'project_id: the platform key signs in to every project; a project_id goes with an admin key only.',
        suggestion:
          'Send the platform key with an empty body ({}), or a project ' +
          'admin key in X-Admin-Key with {"project_id": "..."}.',
      });
    }
    return { kind: 'platform' };
  }
  const presented = header(request, 'x-admin-key');
  if (presented === undefined) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'A dashboard token is made from the platform key or a project admin key.',
      suggestion: 'Send X-Platform-Key: <platform key>, or X-Admin-Key: sk_... with {"project_id": "<its project>"}.',
    });
  }
  if (projectId === undefined) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'project_id: an admin key opens one project; say which.',
      suggestion: 'Send {"project_id": "<the project of this sk_ key>"}.',
    });
  }
  const state = await registry.get(projectId);
  const key = registry.matchKey(state, presented);
  if (key?.type !== 'sk') throw invalidKey('X-Admin-Key', 'sk_');
  registry.noteKeyUsed(key);
  return { kind: 'project', projectId: state.project.id, keyId: key.id };
}

function invalidKey(headerName: string, prefix: string): AppError {
  return new AppError('AUTH_INVALID_KEY', {
    message: `The ${headerName} is not a current ${prefix} key of this project.`,
    suggestion:
      `Send a current ${prefix} key of this project in ${headerName}; ` +
      'keys are shown when a project is created or its keys are rotated.',
  });
}
