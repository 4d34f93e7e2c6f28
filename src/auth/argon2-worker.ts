/**
 * The body of a password-hashing thread (see argon2-hasher.ts). It hashes synchronously on its
 * own thread, which runs at a lower CPU priority than the event loop, so a burst of logins
 * takes spare CPU time instead of the time requests need.
 */
import { Algorithm, hashSync, verifySync } from '@node-rs/argon2';

/** OWASP's argon2id parameters (m=19456 KiB, t=2, p=1). */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export type HashTask =
  | { readonly op: 'hash'; readonly password: string }
  | { readonly op: 'verify'; readonly encodedHash: string; readonly password: string };

/** Runs one task: an encoded hash for 'hash', a match for 'verify' (a malformed stored hash never matches). */
export default function runHashTask(task: HashTask): string | boolean {
  if (task.op === 'hash') return hashSync(task.password, OPTIONS);
  try {
    return verifySync(task.encodedHash, task.password);
  } catch {
    return false;
  }
}
