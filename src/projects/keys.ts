/**
 * Project keys: `sk_` (admin) and `pk_` (publishable), 40 random base62 characters after the
 * prefix. Only a SHA-256 hash is stored; presented keys are compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../lib/random.js';
import { hashSecret, hashSecretBytes } from '../lib/secrets.js';

export type KeyType = 'sk' | 'pk';

/** A stored key: never the key itself. */
export interface KeyRecord {
  readonly id: string;
  readonly type: KeyType;
  /** The first characters, so an operator can tell keys apart in listings. */
  readonly prefix: string;
  readonly hash: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  /** Set when a rotation gave the old key a grace period. */
  readonly expires_at: string | null;
}

/** A freshly made key: the only moment the full value exists. */
export interface NewKey {
  readonly value: string;
  readonly prefix: string;
  readonly hash: string;
}

/** Makes a new key of a type from the CSPRNG. */
export function generateKey(type: KeyType): NewKey {
  const value = `${type}_${randomBase62(40)}`;
  return { value, prefix: value.slice(0, 8), hash: hashSecret(value) };
}

/**
 * Finds which of a project's keys the presented value is, or undefined.
 * Every candidate is compared (constant time each, no early exit) so timing does not tell which matched.
 */
export function matchKey(keys: readonly KeyRecord[], presented: string, nowIso: string): KeyRecord | undefined {
  const presentedHash = hashSecretBytes(presented);
  let match: KeyRecord | undefined;
  for (const key of keys) {
    const equal = timingSafeEqual(presentedHash, storedHashBytes(key));
    if (equal && (key.expires_at === null || key.expires_at > nowIso)) match = key;
  }
  return match;
}

// Stored hashes decoded once per loaded key record (records are replaced when keys change).
const decodedHashes = new WeakMap<KeyRecord, Buffer>();

function storedHashBytes(key: KeyRecord): Buffer {
  let bytes = decodedHashes.get(key);
  if (!bytes) {
    bytes = Buffer.from(key.hash, 'hex');
    decodedHashes.set(key, bytes);
  }
  return bytes;
}
