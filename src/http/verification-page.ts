/**
 * What a browser sees after opening a verification link: a small page of our own (no script,
 * no inline style: one stylesheet from this server, under the pages' CSP), or a redirect to
 * the project's `verify_redirect_url`. JSON clients keep the JSON answer (auth-verification.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../auth/auth-emails.js';
import type { AppError } from '../errors/app-error.js';
import type { ProjectState } from '../projects/project-registry.js';
import { verifyRedirectTarget } from '../projects/verify-redirect-url.js';
import { PAGE_SECURITY_HEADERS } from './page-headers.js';

/** Where the pages' stylesheet is served (same origin, so `default-src 'self'` allows it). */
export const PAGE_STYLESHEET_PATH = '/_pages/verify.css';

const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1f2933; --muted: #52606d; --bg: #f5f7fa; --card: #fff; --ok: #0f7b3f; \
--bad: #b42318; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7eb; --muted: #9aa5b1; --bg: #12161b; --card: #1f2630; \
--ok: #4ade80; --bad: #f87171; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; padding: 24px;
  background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: 100%; max-width: 28rem; background: var(--card); border-radius: 12px; padding: 32px; \
box-shadow: 0 2px 12px rgba(0, 0, 0, .08); text-align: center; }
.mark { width: 56px; height: 56px; margin: 0 auto 16px; border-radius: 50%; display: flex; align-items: center; \
justify-content: center; font-size: 28px; font-weight: 700; color: #fff; }
.ok .mark { background: var(--ok); }
.failed .mark { background: var(--bad); }
h1 { font-size: 1.4rem; margin: 0 0 12px; }
p { margin: 8px 0; overflow-wrap: anywhere; }
.hint { color: var(--muted); font-size: .95rem; }
`;

/**
 * True when the request prefers HTML to JSON by its Accept header (a browser following a link
 * sends `text/html,...`; curl and fetch send `*` + `/*`, and get JSON). Never throws.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    if (type === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

/** The outcome a page shows: the verified user's email, or the error. */
export type PageOutcome =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly error: AppError };

/** The page's HTML; every value is escaped, so names and messages render as text. */
export function renderVerificationPage(appName: string | undefined, outcome: PageOutcome): string {
  const app = appName ? ` · ${escapeHtml(appName)}` : '';
  const [title, lines] = outcome.ok
    ? [
        'Email verified',
        [
          `<p>${escapeHtml(outcome.email)} is verified${appName ? ` for ${escapeHtml(appName)}` : ''}.</p>`,
          '<p class="hint">You can close this page and sign in.</p>',
        ],
      ]
    : [
        'This link did not work',
        [`<p>${escapeHtml(outcome.error.message)}</p>`, `<p class="hint">${escapeHtml(outcome.error.suggestion)}</p>`],
      ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${title}${app}</title>`,
    // Relative to /p/{id}/auth/verify, so it also works behind a proxy that adds a path prefix.
    `<link rel="stylesheet" href="../../..${PAGE_STYLESHEET_PATH}">`,
    '</head>',
    '<body>',
    `<main class="${outcome.ok ? 'ok' : 'failed'}">`,
    `<div class="mark" aria-hidden="true">${outcome.ok ? '&#10003;' : '!'}</div>`,
    `<h1>${title}</h1>`,
    ...lines,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Answers a browser: a 303 redirect to the project's `verify_redirect_url` (with
 * `verified=true`, or `verified=false&error=CODE`) when it is set and still allowed, else the
 * page, with the error's status and headers on failure. `state` is undefined when the project
 * could not be resolved.
 */
export function sendVerificationPage(
  reply: FastifyReply,
  state: ProjectState | undefined,
  outcome: PageOutcome,
): FastifyReply {
  // The URL of this request carries the token: never cache it, never pass it on as a Referer.
  reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store');
  const target =
    state &&
    verifyRedirectTarget(
      state.settings.verify_redirect_url,
      state.settings.allowed_redirect_origins,
      outcome.ok ? { verified: true } : { verified: false, code: outcome.error.code },
    );
  if (target) return reply.code(303).header('location', target).send();
  const appName = state ? (state.settings.app_name ?? state.project.name) : undefined;
  if (!outcome.ok) reply.code(outcome.error.status).headers(outcome.error.headers);
  return reply.type('text/html; charset=utf-8').send(renderVerificationPage(appName, outcome));
}

/** Registers GET /_pages/verify.css, the stylesheet of the page. */
export function registerPageStylesheet(app: FastifyInstance): void {
  app.get(PAGE_STYLESHEET_PATH, async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .headers(PAGE_SECURITY_HEADERS)
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(STYLESHEET),
  );
}
