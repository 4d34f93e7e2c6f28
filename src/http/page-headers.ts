/**
 * Security headers for every HTML page the server sends (the dashboard at `/_/`, the API
 * reference at `/p/{id}/docs`, the page a browser sees after following a verification link).
 * One constant, so no page can drift to a weaker policy.
 */
import type { FastifyReply } from 'fastify';

/** No inline script, no eval, nothing framed: text a page shows can never run as code. */
export const PAGE_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

/** Sets the page security headers on a reply (HTML and the assets a page loads). */
export function setPageSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(PAGE_SECURITY_HEADERS);
}
