/**
 * The argon2id hasher: real hashes on its worker threads, which must run below the event loop's
 * CPU priority (on Linux) so that a burst of logins does not delay other requests.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { buildArgon2Hasher } from '../../../src/auth/argon2-hasher.js';
import { AppError } from '../../../src/errors/app-error.js';
import { eventually } from '../../helpers/eventually.js';

/** Nice value of every thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('argon2id hasher', () => {
  const hasher = buildArgon2Hasher();
  after(() => hasher.close());

  it('hashes with argon2id and OWASP parameters, verifies the right password only, never a bad hash', async () => {
    const encoded = await hasher.hash('correct horse battery staple');
    assert.match(encoded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(await hasher.hash('correct horse battery staple'), encoded, 'a fresh salt per hash');
    assert.equal(await hasher.verify(encoded, 'correct horse battery staple'), true);
    assert.equal(await hasher.verify(encoded, 'Correct horse battery staple'), false);
    assert.equal(await hasher.verify('not-a-hash', 'x'), false);
    assert.equal(await hasher.verify(await hasher.dummyHash(), 'rowbase-dummy-password-for-timing'), true);
    assert.equal(await hasher.dummyHash(), await hasher.dummyHash(), 'made once');
  });

  it('hashes on threads below the event loop priority, and close() ends them', {
    skip: process.platform !== 'linux' && 'thread priorities are read from /proc',
  }, async () => {
    const own = buildArgon2Hasher({ maxConcurrent: 2 });
    const before = threadNiceValues().filter((nice) => nice > 0).length;
    await Promise.all([own.hash('a'), own.hash('b')]);
    const niced = threadNiceValues().filter((nice) => nice === 10).length;
    assert.ok(niced >= before + 2, `expected 2 more threads at nice 10, found ${niced} (before: ${before})`);
    assert.equal(threadNiceValues()[0], 0, 'the main thread keeps its priority');
    await own.close();
    // A thread ends a little after close() resolves (later on a loaded machine): wait for it.
    await eventually(() => threadNiceValues().filter((nice) => nice === 10).length === before, {
      what: `the hashing threads to end (back to ${before} at nice 10)`,
    });
    await assert.rejects(own.hash('c'), /closed/, 'a closed hasher starts no thread again');
  });

  it('past the wait bound refuses with 503 SERVICE_UNAVAILABLE at once, then works again', async () => {
    const small = buildArgon2Hasher({ maxConcurrent: 1, maxWaiting: 1 });
    try {
      const running = [small.hash('a'), small.hash('b')];
      await assert.rejects(
        small.hash('c'),
        (error: unknown) => error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE',
      );
      await assert.rejects(
        small.dummyHash(),
        (error: unknown) => error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE',
      );
      await Promise.all(running);
      assert.match(await small.dummyHash(), /^\$argon2id\$/, 'a refused dummy hash is made on the next call');
    } finally {
      await small.close();
    }
  });
});
