import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appendToken } from '../../../src/auth/redirect-url.js';
import { redactUrl } from '../../../src/http/logging.js';
import { addressBucket } from '../../../src/lib/address-bucket.js';
import { containsNul, exceedsJsonDepth } from '../../../src/lib/nul-character.js';

describe('addressBucket: per-address rate-limit keys', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.0.0.7', '10.0.0.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ];
  for (const [input, expected] of cases)
    it(`${input} → ${expected}`, () => assert.equal(addressBucket(input), expected));
  it('two addresses of one /64 share a bucket, neighbours do not', () => {
    assert.equal(addressBucket('2001:db8:a:b::1'), addressBucket('2001:db8:a:b:ffff:ffff:ffff:ffff'));
    assert.notEqual(addressBucket('2001:db8:a:b::1'), addressBucket('2001:db8:a:c::1'));
  });
});

describe('redactUrl: secrets in query strings never reach the logs', () => {
  const cases: [string, string][] = [
    ['/p/x/auth/verify?token=abc', '/p/x/auth/verify?token=[redacted]'],
    ['/p/x/auth/verify?%74oken=abc', '/p/x/auth/verify?%74oken=[redacted]'],
    ['/p/x/api/t?x-api-key=pk_1&limit=5', '/p/x/api/t?x-api-key=[redacted]&limit=5'],
    ['/p/x/api/t?filter=a%20%3D%201&sort=-id', '/p/x/api/t?filter=a%20%3D%201&sort=-id'],
    ['/health', '/health'],
  ];
  for (const [input, expected] of cases) it(`${input} → ${expected}`, () => assert.equal(redactUrl(input), expected));
});

describe('appendToken: the mailed token is the only token in the link', () => {
  it('a token parameter already in redirect_url is dropped; the rest of the query is kept', () => {
    assert.equal(
      appendToken(new URL('https://app.example.com/r?token=ATTACKER&next=%2Fhome'), 'T1'),
      'https://app.example.com/r?next=%2Fhome&token=T1',
    );
    assert.equal(
      appendToken(new URL('https://app.example.com/r?%74oken=ATTACKER'), 'T1'),
      'https://app.example.com/r?token=T1',
    );
  });
});

describe('json value checks are iterative', () => {
  const deep = (levels: number): unknown => {
    let value: unknown = 'leaf\u0000';
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };
  it('100,000 levels of nesting neither overflow the stack nor pass the depth cap', () => {
    assert.equal(exceedsJsonDepth(deep(100_000)), true);
    assert.equal(containsNul(deep(100_000)), true);
  });
  it('64 levels pass, 65 do not', () => {
    assert.equal(exceedsJsonDepth(deep(64)), false);
    assert.equal(exceedsJsonDepth(deep(65)), true);
  });
});
