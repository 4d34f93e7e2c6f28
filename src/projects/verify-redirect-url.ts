/**
 * The `verify_redirect_url` setting: where a browser that opened a verification link is sent
 * afterwards (`?verified=true`, or `?verified=false&error=CODE`), instead of a page of our own.
 * It must be an http(s) URL on one of the project's `allowed_redirect_origins`, checked when
 * set and again when used (the allow-list may have changed since).
 */
import { AppError } from '../errors/app-error.js';

/** The longest verify_redirect_url accepted (characters). */
export const MAX_VERIFY_REDIRECT_URL_LENGTH = 2048;

// The URL parser silently drops tabs, newlines and surrounding
// spaces: refuse them, so the stored string is what a browser opens.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\s\u200b\u2060\ufeff]/u;

/**
 * Returns `value` when it is null or an absolute http(s) URL, without user name or password,
 * whose origin is in `allowedOrigins` (stored normalised). Throws VALIDATION_FAILED otherwise.
 */
export function checkVerifyRedirectUrl(value: string | null, allowedOrigins: readonly string[]): string | null {
  if (value === null) return null;
  const refuse = (reason: string): AppError =>
    new AppError('VALIDATION_FAILED', {
      message: `settings: verify_redirect_url ${reason}.`,
      suggestion:
        allowedOrigins.length === 0
          ? 'Add its origin to allowed_redirect_origins first (PUT ' +
            '/p/{id}/v1/redirect-origins), or send null to show the built-in page.'
          : `Use an absolute URL on one of: ${allowedOrigins.join(', ')}; add its origin ` +
            'to allowed_redirect_origins, or send null to show the built-in page.',
    });
  if (value.length > MAX_VERIFY_REDIRECT_URL_LENGTH)
    throw refuse(`is too long (at most ${MAX_VERIFY_REDIRECT_URL_LENGTH} characters)`);
  const shown = JSON.stringify(value.slice(0, 200));
  if (CONTROL_OR_SPACE.test(value)) throw refuse(`${shown} holds a control character or whitespace`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse(`${shown} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`${shown} is not an http(s) URL`);
  if (url.username !== '' || url.password !== '') throw refuse(`${shown} carries a user name or password`);
  if (!allowedOrigins.includes(url.origin))
    throw refuse(`${shown}: its origin ${url.origin} is not in allowed_redirect_origins`);
  return value;
}

/** How a verification ended, for the redirect's query. */
export type VerifyOutcome = { readonly verified: true } | { readonly verified: false; readonly code: string };

/**
 * The URL to send a browser to after a verification: the setting with `verified=true` (or
 * `verified=false&error=CODE`) added to its query, replacing any `verified` or `error` it had;
 * undefined when the setting is null or its origin is no longer allowed. Never throws.
 */
export function verifyRedirectTarget(
  setting: string | null,
  allowedOrigins: readonly string[],
  outcome: VerifyOutcome,
): string | undefined {
  if (setting === null) return undefined;
  let url: URL;
  try {
    url = new URL(setting);
  } catch {
    return undefined;
  }
  if (!allowedOrigins.includes(url.origin)) return undefined;
  const added = outcome.verified ? ['verified=true'] : ['verified=false', `error=${encodeURIComponent(outcome.code)}`];
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !['verified', 'error'].includes(safeDecode(pair.split('=')[0]!)));
  url.search = `?${[...kept, ...added].join('&')}`;
  return url.href;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
