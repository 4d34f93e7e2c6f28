/**
 * 405 METHOD_NOT_ALLOWED for every registered path: when no route takes a request's method,
 * the router is asked which methods the URL does have. Only requests that found no route pay
 * for this (one router lookup per method), never the routes' own hot path.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** The order methods are listed in `Allow` (then any other method the server routes). */
const LISTING_ORDER: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'TRACE', 'OPTIONS'];
/** Methods a caller does not need to be told about in the suggestion (they come with the others). */
const IMPLIED = new Set(['HEAD', 'OPTIONS']);

/** The number of parameters (wildcards included) a route bound to match the URL. */
function paramCount(params: unknown): number {
  return Object.keys(params as object).length;
}

/**
 * The methods `url` answers, in listing order; empty when the path does not exist. OPTIONS
 * alone does not make a path exist: CORS preflights are answered under whole prefixes
 * (`/p/{id}/api/*`), unknown paths included. A route that matched only because a parameter
 * took a segment another method's route spells literally (GET `/p/{id}/api/{table}/{row_id}`
 * for `.../bulk`, whose only route is POST) does not count: the fewest parameters win.
 */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  const methods = [...new Set([...LISTING_ORDER, ...app.supportedMethods])];
  const found = methods.flatMap((method) => {
    const route = app.findRoute({ method: method as HTTPMethods, url });
    // The router's refusals of the URL itself (undecodable, a parameter over its length limit)
    // come back as a stand-in route without search params: no method of any path.
    return route && route.searchParams !== undefined ? [{ method, params: paramCount(route.params) }] : [];
  });
  const routed = found.filter((entry) => entry.method !== 'OPTIONS');
  if (routed.length === 0) return [];
  const fewest = Math.min(...routed.map((entry) => entry.params));
  return found.filter((entry) => entry.method === 'OPTIONS' || entry.params === fewest).map((entry) => entry.method);
}

/** "GET", "GET or POST", "GET, PATCH or DELETE". */
function spokenList(methods: readonly string[]): string {
  return methods.length <= 1 ? methods.join('') : `${methods.slice(0, -1).join(', ')} or ${methods.at(-1)}`;
}

/**
 * The 405 METHOD_NOT_ALLOWED answer for `method` on `url`, whose path answers `allowed`: the
 * `Allow` header lists them all, the suggestion names the ones a caller would choose.
 */
export function methodNotAllowed(method: string, url: string, allowed: readonly string[]): AppError {
  const path = url.split('?')[0]!;
  const chosen = allowed.filter((m) => !IMPLIED.has(m));
  return new AppError('METHOD_NOT_ALLOWED', {
    message: `${method} is not a method of ${path}.`,
    suggestion: `Use ${spokenList(chosen.length > 0 ? chosen : allowed)} on ${path}.`,
    headers: { allow: allowed.join(', ') },
  });
}

/**
 * The answer for a request no route took (or whose route called notFound): 405 when the path
 * exists with other methods only, else 404 NOT_FOUND.
 */
export function noRouteError(app: FastifyInstance, method: string, url: string): AppError {
  const allowed = allowedMethods(app, url);
  // A route of this very method took the request and found nothing (a missing static asset
  // under GET /_/*): that is a 404, not a wrong method.
  if (allowed.length > 0 && !allowed.includes(method.toUpperCase())) return methodNotAllowed(method, url, allowed);
  return new AppError('NOT_FOUND', { message: `No route matches ${method} ${url.split('?')[0]}.` });
}
