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
    ['a tab inside the host (the parser would drop it)', 'https://allo\twed.com/reset'],
    ['a newline inside the path', 'https://allowed.com/re\nset'],
    ['a carriage return', 'https://allowed.com/\rreset'],
    ['a NUL byte', 'https://allowed.com/\u0000'],
    ['DEL', 'https://allowed.com/\u007f'],
    ['a space inside the path', 'https://allowed.com/re set'],
    ['a leading space (the parser would strip it)', ' https://allowed.com/reset'],
    ['a trailing space', 'https://allowed.com/reset '],
    ['a no-break space', 'https://allowed.com/\u00a0'],
    ['a C1 control', 'https://allowed.com/\u0085'],
    ['longer than 2048 characters', `https://allowed.com/${'a'.repeat(2030)}`],
  ];
  for (const [name, input] of refused) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => checkRedirectUrl(input, ALLOWED, 'demo'),
        (error) => isAppError(error) && error.code === 'VALIDATION_REDIRECT_URL',
      );
    });
  }

  const accepted: [string, string, string][] = [
    ['upper case', 'HTTPS://ALLOWED.COM/a', 'https://allowed.com'],
    ['default port spelled out', 'https://allowed.com:443/a', 'https://allowed.com'],
    ['exactly 2048 characters', `https://allowed.com/${'a'.repeat(2028)}`, 'https://allowed.com'],
    ['a percent-encoded space', 'https://allowed.com/re%20set', 'https://allowed.com'],
    ['localhost with its port', 'http://localhost:3000/reset', 'http://localhost:3000'],
    ['backslash in the path of an allowed host', 'https://allowed.com\\@evil.com', 'https://allowed.com'],
  ];
  for (const [name, input, origin] of accepted) {
    it(`accepts ${name}`, () => {
      assert.equal(checkRedirectUrl(input, ALLOWED, 'demo').origin, origin);
    });
  }

  for (const [name, input] of [
    ['a number', 42],
    ['an object', { href: 'https://allowed.com/' }],
    ['null', null],
    ['an array', ['https://allowed.com/']],
  ] as const) {
    it(`refuses ${name} instead of a string`, () => {
      assert.throws(
        () => checkRedirectUrl(input, ALLOWED, 'demo'),
        (error) => isAppError(error) && error.code === 'VALIDATION_REDIRECT_URL',
      );
    });
  }

  it('the suggestion names the real project id', () => {
    assert.throws(
      () => checkRedirectUrl('https://evil.com/', ALLOWED, 'demo'),
      (error) =>
        isAppError(error) &&
        /PUT \/p\/demo\/v1\/redirect-origins/.test(error.suggestion) &&
        !error.suggestion.includes('{id}'),
    );
  });

  it('refuses everything when no origin is allowed', () => {
    assert.throws(
      () => checkRedirectUrl('https://allowed.com/', [], 'demo'),
      (error) => isAppError(error) && error.code === 'VALIDATION_REDIRECT_URL',
    );
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
