/** Hashing and constant-time comparison of high-entropy secrets (keys, tokens). */
import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret, hex. Enough for random secrets of 128+ bits; passwords use argon2id. */
export function hashSecret(secret: string): string {
  return hashSecretBytes(secret).toString('hex');
}

/** SHA-256 of a secret, as bytes (for constant-time comparison with a stored hash). */
export function hashSecretBytes(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Compares two strings in time that does not depend on where they differ.
 * Both sides are hashed first so that unequal lengths leak nothing either.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hashSecretBytes(a), hashSecretBytes(b));
}
