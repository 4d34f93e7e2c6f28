/**
 * CORS for browser apps (contract §8, docs/browser-apps.md). A project's data, auth and
 * realtime paths answer pages on the origins its `cors_origins` setting allows; platform and
 * admin paths (`/v1/...`, `/p/{id}/v1/...`) never carry an `Access-Control-Allow-*` header.
 *
 * Written here rather than with @fastify/cors, whose per-request options (a `delegator`)
 * would run on every request, add `Vary: Origin` to every answer and decide in `onRequest`,
 * before the route has loaded the project, so the project would be looked up twice; its
 * strict preflight check answers a plain-text 400 outside the error envelope. The rules
 * below are three cases and a fixed header list.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { ProjectRegistry } from '../projects/project-registry.js';

/** The methods a page may use on the CORS paths (browsers allow HEAD without asking). */
export const CORS_ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
/**
 * The request headers a page may send. Never X-Admin-Key or X-Platform-Key: a page on another
 * origin can never send an admin key (docs/browser-apps.md says why).
 */
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Api-Key, Last-Event-ID';
/** Response headers a page may read besides the safelisted ones: how long to wait, and the id to report. */
export const CORS_EXPOSE_HEADERS = 'Retry-After, X-Request-Id';
/** Chromium caps a preflight's cache at 7200 s; the actual answer re-checks the origin anyway. */
export const CORS_MAX_AGE_SECONDS = 7200;

// `/p/{id}/api...`, `/p/{id}/auth...`, `/p/{id}/realtime...`, matched on the raw URL as the
// router sees it; `/p/{id}/v1/...` and `/v1/...` never match.
const CORS_PATH = /^\/p\/([^/?#]+)\/(?:api|auth|realtime)(?:[/?#]|$)/;

/** The project id of a URL on a CORS path, or undefined for every other path. */
export function corsProjectId(url: string): string | undefined {
  const match = CORS_PATH.exec(url);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1]!;
  }
}

/**
 * The `Access-Control-Allow-Origin` value for a request from `origin` under a project's
 * `cors_origins`, or undefined when the origin is refused. `corsOrigins` undefined means the
 * project does not exist: `*`, so a page can read PROJECT_NOT_FOUND (nothing to leak there).
 */
export function allowedOrigin(corsOrigins: readonly string[] | undefined, origin: string): string | undefined {
  if (corsOrigins === undefined || corsOrigins[0] === '*') return '*';
  // Browsers send the serialised origin, the same form the setting is stored in.
  return corsOrigins.includes(origin) ? origin : undefined;
}

/** Adds `Origin` to the reply's Vary header (an answer that depends on the request's origin). */
function varyOnOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Origin');
  else if (!/(^|,)\s*origin\s*(,|$)/i.test(String(vary))) reply.header('vary', `${String(vary)}, Origin`);
}

/**
 * Sets the CORS headers of an actual (non-preflight) answer to a request from `origin`.
 * A route that writes its answer itself (a hijacked event stream) calls this, then sends
 * `reply.getHeaders()`.
 */
export function setCorsHeaders(reply: FastifyReply, corsOrigins: readonly string[] | undefined, origin: string): void {
  const allowed = allowedOrigin(corsOrigins, origin);
  if (allowed !== '*') varyOnOrigin(reply);
  if (allowed === undefined) return;
  reply.header('access-control-allow-origin', allowed);
  reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
}

/**
 * Sets the CORS headers of an actual answer to `request` when it carries `Origin` and is on a
 * CORS path. Returns a promise only when the project had to be looked up; it never rejects:
 * a failed lookup leaves the answer without CORS headers.
 */
export function applyCors(
  request: FastifyRequest,
  reply: FastifyReply,
  registry: ProjectRegistry,
): Promise<void> | undefined {
  const origin = request.headers.origin;
  if (origin === undefined || request.method === 'OPTIONS') return undefined;
  const id = corsProjectId(request.url);
  if (id === undefined) return undefined;
  // A route has loaded the project through `get` (which checks for changes made by other
  // processes), so the cache is current: no storage access here. An answer given before
  // that lookup (unknown route, a body refused by its declared size or by the parser at an
  // auth endpoint) may see a change made by another process one lookup late; it carries an
  // error envelope only.
  const cached = registry.cached(id);
  if (cached) {
    setCorsHeaders(reply, cached.settings.cors_origins, origin);
    return undefined;
  }
  // Not cached: an unknown project, or an answer given before the project was ever loaded.
  return registry.find(id).then(
    (state) => setCorsHeaders(reply, state?.settings.cors_origins, origin),
    () => undefined,
  );
}

/**
 * Installs CORS: an onSend hook that adds the headers to every answer on a CORS path (errors
 * included, since every answer goes through onSend), and the OPTIONS routes that answer
 * preflights without credentials. Answers to URLs the router cannot decode skip onSend:
 * the app's `frameworkErrors` calls `applyCors` itself.
 */
export function registerCors(app: FastifyInstance, registry: ProjectRegistry): void {
  // A callback hook, not async: a request without Origin (every client that is not a page on
  // another origin) then costs one property read and no promise on the benchmarked hot path.
  const addCorsHeaders: onSendHookHandler = (request, reply, payload, done) => {
    if (request.headers.origin === undefined) return done(null, payload);
    const pending = applyCors(request, reply, registry);
    if (pending === undefined) return done(null, payload);
    pending.then(() => done(null, payload));
  };
  app.addHook('onSend', addCorsHeaders);

  const preflight = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined || request.headers['access-control-request-method'] === undefined) {
      // Not a preflight: say which methods the path takes.
      return reply.code(204).header('allow', `${CORS_ALLOW_METHODS}, OPTIONS`).send();
    }
    // A preflight is a request of its own: `find` checks the cache against other processes' changes.
    const state = await registry.find(request.params.id);
    const allowed = allowedOrigin(state?.settings.cors_origins, origin);
    if (allowed !== '*') varyOnOrigin(reply);
    if (allowed !== undefined) {
      reply.headers({
        'access-control-allow-origin': allowed,
        'access-control-allow-methods': CORS_ALLOW_METHODS,
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      });
    }
    return reply.code(204).send();
  };
  // Preflights are answered for any path under the CORS prefixes, route or not: the actual
  // request then gets its readable 404 (NOT_FOUND, PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED).
  for (const path of ['/p/:id/api', '/p/:id/api/*', '/p/:id/auth', '/p/:id/auth/*', '/p/:id/realtime']) {
    app.options(path, preflight);
  }
}
