/**
 * The forgot-password `redirect_url` check (service §4.1 rule 3): parsed with the WHATWG URL
 * parser, which is what browsers use, so the origin we compare is the origin the browser
 * will open. The reset link is then built from the parsed URL, never from the raw string.
 */
import { AppError } from '../errors/app-error.js';

/**
 * Returns the parsed URL when its origin is one of `allowedOrigins` (stored normalised).
 * Throws VALIDATION_REDIRECT_URL for relative or scheme-relative URLs, schemes other than
 * http(s), userinfo, and any origin not on the list.
 */
export function checkRedirectUrl(input: string, allowedOrigins: readonly string[]): URL {
  let url: URL | undefined;
  try {
    // No base URL: "//evil.com" and "/path" do not parse, so they cannot borrow an origin.
    url = new URL(input);
  } catch {
    url = undefined;
  }
  // Userinfo is refused outright: "https://allowed.com@evil.com" reads as allowed.com to people.
  const acceptable = url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  if (!acceptable || !allowedOrigins.includes(url!.origin)) {
    throw new AppError('VALIDATION_REDIRECT_URL', {
      message: `redirect_url: ${JSON.stringify(input.slice(0, 200))} is not an http(s) URL on an allowed origin.`,
      suggestion: allowedOrigins.length === 0
        ? 'This project allows no redirect origins yet: add yours with PUT /p/{id}/v1/redirect-origins.'
        : `Use a URL on one of: ${allowedOrigins.join(', ')}; or add its origin with PUT /p/{id}/v1/redirect-origins.`,
    });
  }
  return url!;
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
