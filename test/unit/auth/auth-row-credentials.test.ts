/**
 * The credentials of auth-table rows written through the data API (with the admin key) or
 * signup are prepared by auth/ (auth-row-credentials.ts), the row service's CredentialsPort:
 * the same email and password rules as the auth endpoints.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAuthRowCredentials } from '../../../src/auth/auth-row-credentials.js';
import { checkPasswordLength } from '../../../src/auth/password-policy.js';
import { isAppError } from '../../../src/errors/app-error.js';
import type { PasswordHasher } from '../../../src/lib/password-hasher.js';

/** A visible stand-in for argon2 (the port's real implementation is tested in argon2-hasher.test.ts). */
const hasher: PasswordHasher = {
  hash: async (password) => `hashed:${password}`,
  verify: async (hash, password) => hash === `hashed:${password}`,
  dummyHash: async () => 'hashed:',
};
const credentials = buildAuthRowCredentials(hasher);
const refusedWith = (code: string, message?: RegExp) => (error: unknown) =>
  isAppError(error) && error.code === code && (message === undefined || message.test(error.message));

describe('auth-table credentials written through the row service', () => {
  it('a new user: email lower-cased, password stored as its hash, email_verified false', async () => {
    const values = await credentials.prepare(
      { email: 'Ada@Example.COM', password: 'correct horse', name: 'Ada' },
      { creating: true, minPasswordLength: 8 },
    );
    assert.deepEqual(values, {
      email: 'ada@example.com',
      password: 'hashed:correct horse',
      name: 'Ada',
      email_verified: false,
    });
  });

  it('a new user the admin marks verified stays verified', async () => {
    const values = await credentials.prepare(
      { email: 'a@b.co', password: 'correct horse', email_verified: true },
      { creating: true, minPasswordLength: 8 },
    );
    assert.equal(values.email_verified, true);
  });

  it('an update changes only what it names (no email_verified added)', async () => {
    assert.deepEqual(await credentials.prepare({ name: 'Ada' }, { creating: false, minPasswordLength: 8 }), {
      name: 'Ada',
    });
  });

  it('a password shorter than the project minimum → VALIDATION_PASSWORD naming the bulk row', async () => {
    await assert.rejects(
      credentials.prepare({ email: 'a@b.co', password: 'short' }, { creating: true, minPasswordLength: 8, index: 3 }),
      refusedWith('VALIDATION_PASSWORD', /^row 3: password: must be 8 to 256 characters long \(it has 5\)\.$/),
    );
  });
});

describe('checkPasswordLength', () => {
  it('counts characters, not UTF-16 units: 8 emoji pass a minimum of 8', () => {
    assert.doesNotThrow(() => checkPasswordLength('😀'.repeat(8), 8));
  });

  it('257 characters → VALIDATION_PASSWORD', () => {
    assert.throws(() => checkPasswordLength('x'.repeat(257), 8), refusedWith('VALIDATION_PASSWORD', /it has 257/));
  });
});
