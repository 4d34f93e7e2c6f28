/** Cryptographically random strings for keys, tokens and secrets. */
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Returns `length` random base62 characters from the OS CSPRNG.
 * Rejection sampling keeps every character uniformly likely (no modulo bias).
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Returns `bytes` random bytes encoded as base64url (for opaque tokens). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
