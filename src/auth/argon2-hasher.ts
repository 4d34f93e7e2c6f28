/**
 * argon2id password hashing with OWASP's parameters (m=19456 KiB, t=2, p=1). @node-rs/argon2
 * hashes on libuv's thread pool, off the event loop; a semaphore bounds concurrent hashes so
 * a burst of logins queues instead of taking every thread and ~19 MiB of memory per hash.
 */
import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { Semaphore } from '../lib/semaphore.js';

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Builds the argon2id hasher; `maxConcurrent` hashes run at once (default 2, below libuv's 4 threads). */
export function buildArgon2Hasher(maxConcurrent = 2): PasswordHasher & { readonly dummyHash: Promise<string> } {
  const slots = new Semaphore(maxConcurrent);
  const hasher = {
    hash: (password: string) => slots.run(() => hash(password, OPTIONS)),
    verify: (encodedHash: string, password: string) =>
      slots.run(async () => {
        try {
          return await verify(encodedHash, password);
        } catch {
          return false; // a malformed stored hash never matches
        }
      }),
  };
  // Verified against for unknown emails, so a miss costs as much time as a wrong password.
  const dummyHash = hash('rowbase-dummy-password-for-timing', OPTIONS);
  return { ...hasher, dummyHash };
}
