import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appendToken, checkRedirectUrl } from '../../../src/auth/redirect-url.js';
import { isAppError } from '../../../src/errors/app-error.js';

const ALLOWED = ['https://allowed.com', 'http://localhost:3000'];

describe('checkRedirectUrl', () => {
  const refused: [string, string][] = [
    ['userinfo before the host', 'https://allowed.com@evil.com/'],
    ['userinfo on the allowed host', 'https://a:b@allowed.com/'],
    ['scheme-relative', '//evil.com/'],
    ['relative path', '/reset'],
    ['look-alike host', 'https://allowed.com.evil.com/'],
    ['allowed origin in the path', 'https://evil.com/https://allowed.com'],
    ['javascript:', 'javascript:alert(1)'],
    ['javascript: with the origin in a comment', 'javascript://allowed.com/%0aalert(1)'],
    ['data:', 'data:text/html,hi'],
    ['file:', 'file:///etc/passwd'],
    ['other port', 'https://allowed.com:444/'],
    ['other scheme', 'http://allowed.com/'],
    ['backslashes (read as slashes by browsers)', 'https:\\\\evil.com\\allowed.com'],
    ['tab inside the scheme', 'ht\ttps://evil.com'],
    ['empty', ''],
    ['IDN look-alike (Cyrillic а)', 'https://аllowed.com/'],
  ];
  for (const [name, input] of refused) {
    it(`refuses ${name}`, () => {
      assert.throws(() => checkRedirectUrl(input, ALLOWED), (error) => isAppError(error) && error.code === 'VALIDATION_REDIRECT_URL');
    });
  }

  const accepted: [string, string, string][] = [
    ['upper case', 'HTTPS://ALLOWED.COM/a', 'https://allowed.com'],
    ['default port spelled out', 'https://allowed.com:443/a', 'https://allowed.com'],
    ['surrounding spaces (stripped by the parser)', '  https://allowed.com/a  ', 'https://allowed.com'],
    ['localhost with its port', 'http://localhost:3000/reset', 'http://localhost:3000'],
    ['backslash in the path of an allowed host', 'https://allowed.com\\@evil.com', 'https://allowed.com'],
  ];
  for (const [name, input, origin] of accepted) {
    it(`accepts ${name}`, () => {
      assert.equal(checkRedirectUrl(input, ALLOWED).origin, origin);
    });
  }

  it('refuses everything when no origin is allowed', () => {
    assert.throws(() => checkRedirectUrl('https://allowed.com/', []), (error) => isAppError(error) && error.code === 'VALIDATION_REDIRECT_URL');
  });
});

describe('appendToken', () => {
  const cases: [string, string][] = [
    ['https://allowed.com/reset', 'https://allowed.com/reset?token=T0k-_'],
    ['https://allowed.com/reset?', 'https://allowed.com/reset?token=T0k-_'],
    ['https://allowed.com/reset?a=1&b=%2F', 'https://allowed.com/reset?a=1&b=%2F&token=T0k-_'],
    ['https://allowed.com/reset?token=old', 'https://allowed.com/reset?token=T0k-_'],
    ['https://allowed.com/reset#section', 'https://allowed.com/reset?token=T0k-_#section'],
    ['https://allowed.com', 'https://allowed.com/?token=T0k-_'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${expected}`, () => {
      assert.equal(appendToken(new URL(input), 'T0k-_'), expected);
    });
  }
});
