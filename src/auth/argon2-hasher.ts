/**
 * argon2id password hashing with OWASP's parameters (m=19456 KiB, t=2, p=1). @node-rs/argon2
 * hashes on libuv's thread pool, off the event loop; a semaphore bounds concurrent hashes so
 * a burst of logins queues instead of taking every thread and ~19 MiB of memory per hash,
 * and bounds the queue itself, so a flood is refused (503) instead of delaying everyone.
 */
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { AppError } from '../errors/app-error.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { Semaphore, SemaphoreFullError } from '../lib/semaphore.js';

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Tunables of the hasher. */
export interface Argon2HasherOptions {
  /** Hashes running at once (default 2, below libuv's 4 threads). */
  readonly maxConcurrent?: number;
  /** Hashes allowed to wait for a slot (default 64, about a second of work on 2 slots); more are refused. */
  readonly maxWaiting?: number;
}

/**
 * Builds the argon2id hasher. `hash` and `verify` throw SERVICE_UNAVAILABLE (503, Retry-After: 1)
 * when `maxWaiting` hashes are already waiting.
 */
export function buildArgon2Hasher(options: Argon2HasherOptions = {}): PasswordHasher & { readonly dummyHash: Promise<string> } {
  const slots = new Semaphore(options.maxConcurrent ?? 2, options.maxWaiting ?? 64);
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await slots.run(work);
    } catch (error) {
      // The slots are shared by every project: past the bound, refusing fast keeps other projects' logins fast.
      if (error instanceof SemaphoreFullError) throw busy();
      throw error;
    }
  };
  const hasher = {
    hash: (password: string) => run(() => hash(password, OPTIONS)),
    verify: (encodedHash: string, password: string) =>
      run(async () => {
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

function busy(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', {
    message: 'Too many password checks are waiting; the server is busy.',
    suggestion: 'Retry in a second (the Retry-After header).',
    headers: { 'retry-after': '1' },
  });
}
