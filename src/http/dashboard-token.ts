/**
 * The X-Dashboard-Token header (contract §12): a request that carries one has it checked once,
 * before its route runs, so the credential checks of credentials.ts (which answer at once for
 * keys) can read the outcome without waiting. A request without the header costs nothing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DashboardGrant, DashboardTokens } from '../projects/dashboard-tokens.js';

/** What checking a request's dashboard token gave: its grant, or the refusal to throw when credentials are read. */
export type DashboardTokenCheck = { readonly grant: DashboardGrant } | { readonly refusal: unknown };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request sent X-Dashboard-Token (see registerDashboardTokenCheck); null otherwise. */
    dashboardToken: DashboardTokenCheck | null;
  }
}

/** The header the dashboard sends its token in (lower-case, as Node gives request headers). */
export const DASHBOARD_TOKEN_HEADER = 'x-dashboard-token';

/**
 * Checks X-Dashboard-Token on every request that sends it. A refused token does not answer
 * here: only an endpoint that reads credentials refuses it, so /health or the dashboard's own
 * files still load for a tab whose token has ended.
 */
export function registerDashboardTokenCheck(app: FastifyInstance, tokens: DashboardTokens): void {
  // Declared up front, so every request object keeps one shape (Fastify's advice for decorations).
  app.decorateRequest('dashboardToken', null);
  // A callback hook, not async: requests without the header (nearly all) get no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const presented = request.headers[DASHBOARD_TOKEN_HEADER];
    if (presented === undefined) {
      done();
      return;
    }
    tokens.verify(Array.isArray(presented) ? (presented[0] ?? '') : presented).then(
      (grant) => {
        request.dashboardToken = { grant };
        done();
      },
      (refusal: unknown) => {
        request.dashboardToken = { refusal };
        done();
      },
    );
  });
}

/**
 * The grant of the request's dashboard token, or undefined when it sent
 * none. Throws the token's refusal (AUTH_INVALID_TOKEN, AUTH_TOKEN_EXPIRED).
 */
export function dashboardGrantOf(request: FastifyRequest): DashboardGrant | undefined {
  const check = request.dashboardToken;
  if (check === null) return undefined;
  if ('refusal' in check) throw check.refusal;
  return check.grant;
}
