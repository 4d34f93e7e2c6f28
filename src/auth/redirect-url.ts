/**
 * The forgot-password `redirect_url` check (service §4.1 rule 3): parsed with the WHATWG URL
 * parser, which is what browsers use, so the origin we compare is the origin the browser
 * will open. The string must be exactly what gets parsed: the parser silently drops tabs,
 * newlines and surrounding spaces, so any control character or whitespace is refused rather
 * than mailing a URL the client never sent. The reset link is then built from the parsed
 * URL, never from the raw string.
 */
import { AppError } from '../errors/app-error.js';

/** The longest redirect_url accepted (characters). */
export const MAX_REDIRECT_URL_LENGTH = 2048;

// ASCII controls, space, DEL, C1 controls and Unicode whitespace: none survive the parser as sent.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\s\u200b\u2060\ufeff]/u;

/**
 * Returns the parsed URL when it is an http(s) URL, exactly as sent, on one of
 * `allowedOrigins` (stored normalised). Throws VALIDATION_REDIRECT_URL for anything else: not
 * a string, longer than MAX_REDIRECT_URL_LENGTH, holding a control character or whitespace,
 * unparsable, relative or scheme-relative, another scheme, userinfo, or an origin not on the
 * list. `projectId` names the project in the suggestion.
 */
export function checkRedirectUrl(input: unknown, allowedOrigins: readonly string[], projectId: string): URL {
  const refuse = (reason: string): AppError =>
    new AppError('VALIDATION_REDIRECT_URL', {
      message: `redirect_url: ${reason}`,
      suggestion:
        allowedOrigins.length === 0
          ? `This project allows no redirect origins yet: add yours with PUT /p/${projectId}/v1/redirect-origins.`
          : `Send an absolute URL on one of: ${allowedOrigins.join(', ')}; ` +
            `or add its origin with PUT /p/${projectId}/v1/redirect-origins.`,
    });
  if (typeof input !== 'string') throw refuse('must be a string holding an absolute http(s) URL.');
  if (input.length > MAX_REDIRECT_URL_LENGTH)
    throw refuse(`is too long (${input.length} characters; at most ${MAX_REDIRECT_URL_LENGTH}).`);
  const shown = JSON.stringify(input.slice(0, 200));
  if (CONTROL_OR_SPACE.test(input))
    throw refuse(`${shown} holds a control character or whitespace; percent-encode it (%20) or remove it.`);
  let url: URL | undefined;
  try {
    // No base URL: "//evil.com" and "/path" do not parse, so they cannot borrow an origin.
    url = new URL(input);
  } catch {
    throw refuse(`${shown} is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`${shown} is not an http(s) URL.`);
  // Userinfo is refused outright: "https://allowed.com@evil.com" reads as allowed.com to people.
  if (url.username !== '' || url.password !== '') throw refuse(`${shown} carries a user name or password.`);
  if (!allowedOrigins.includes(url.origin))
    throw refuse(`the origin ${url.origin} of ${shown} is not in allowed_redirect_origins.`);
  return url;
}

/**
 * The link to mail: `url` with `token=<token>` appended to its query, which otherwise stays as
 * it was. A `token` parameter already in the URL is dropped: a reset page reading the first
 * `token` would otherwise use a value the requester chose instead of the mailed one.
 */
export function appendToken(url: URL, token: string): string {
  const link = new URL(url.href);
  const kept = link.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && decodeName(pair.split('=')[0]!) !== 'token');
  link.search = `?${[...kept, `token=${encodeURIComponent(token)}`].join('&')}`;
  return link.href;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
