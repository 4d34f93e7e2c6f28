/**
 * argon2id password hashing with OWASP's parameters, on a small pool of worker threads
 * (piscina) that run at a lower CPU priority than the event loop (Linux: nice +10 per thread).
 * A hash takes tens of milliseconds of CPU; at equal priority two hashing threads take their
 * share of the cores from the event loop, and every request waits behind them (measured: GET
 * p99 10 ms during a login burst). Niced, they use the CPU the event loop leaves over.
 *
 * A semaphore bounds hashes in flight to the pool's threads and the queue behind them, so a
 * flood is refused (503) instead of delaying everyone.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../errors/app-error.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { Semaphore, SemaphoreFullError } from '../lib/semaphore.js';
import type { HashTask } from './argon2-worker.js';

/** Tunables of the hasher. */
export interface Argon2HasherOptions {
  /** Hashing threads, and so hashes running at once (default 2). */
  readonly maxConcurrent?: number;
  /** Hashes allowed to wait for a thread (default 64, about a second of work on 2 threads); more are refused. */
  readonly maxWaiting?: number;
}

/** A hasher whose threads must be stopped with `close` when the server stops. */
export interface Argon2Hasher extends PasswordHasher {
  /** Stops the hashing threads; hashes asked for afterwards fail. */
  close(): Promise<void>;
}

/** Lower than the event loop's priority (0), high enough that logins still progress on a busy machine. */
const NICE_INCREMENT = 10;
/** Idle hashing threads exit after this long and are started again on demand. */
const IDLE_THREAD_MS = 60_000;

// Built code runs argon2-worker.js next to this file; tests run the TypeScript source through tsx.
const WORKER_FILE = new URL(
  import.meta.url.endsWith('.ts') ? './argon2-worker.ts' : './argon2-worker.js',
  import.meta.url,
).href;

/**
 * Builds the argon2id hasher. `hash` and `verify` throw SERVICE_UNAVAILABLE (503, Retry-After: 1)
 * when `maxWaiting` hashes are already waiting.
 */
export function buildArgon2Hasher(options: Argon2HasherOptions = {}): Argon2Hasher {
  const threads = Math.max(1, options.maxConcurrent ?? Math.min(2, availableParallelism()));
  const slots = new Semaphore(threads, options.maxWaiting ?? 64);
  const pool = new Piscina<HashTask, string | boolean>({
    filename: WORKER_FILE,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: IDLE_THREAD_MS,
    niceIncrement: NICE_INCREMENT,
  });
  let closed = false;
  const run = async <T extends string | boolean>(task: HashTask): Promise<T> => {
    if (closed) throw new Error('the password hasher is closed');
    try {
      return (await slots.run(() => pool.run(task))) as T;
    } catch (error) {
      // The threads are shared by every project: past the bound, refusing fast keeps other projects' logins fast.
      if (error instanceof SemaphoreFullError) throw busy();
      throw error;
    }
  };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => run<string>({ op: 'hash', password }),
    verify: (encodedHash, password) => run<boolean>({ op: 'verify', encodedHash, password }),
    dummyHash: () => {
      dummy ??= run<string>({ op: 'hash', password: 'rowbase-dummy-password-for-timing' }).catch((error: unknown) => {
        dummy = undefined; // a refusal (503) must not stick: the next miss tries again
        throw error;
      });
      return dummy;
    },
    close: async () => {
      closed = true;
      await pool.destroy();
    },
  };
}

function busy(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', {
    message: 'Too many password checks are waiting; the server is busy.',
    suggestion: 'Retry in a second (the Retry-After header).',
    headers: { 'retry-after': '1' },
  });
}
