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
 * Finds which of a project's keys the presented value is, or undefined. A value seen to match
 * before is found in a per-key-list cache; otherwise every candidate is compared (constant
 * time each, no early exit) so timing does not tell which matched.
 */
export function matchKey(keys: readonly KeyRecord[], presented: string, nowIso: string): KeyRecord | undefined {
  let verified = verifiedKeys.get(keys);
  const known = verified?.get(presented);
  if (known) return known.expires_at === null || known.expires_at > nowIso ? known : undefined;
  const match = compareAll(keys, presented, nowIso);
  if (match) {
    if (!verified) {
      verified = new Map();
      verifiedKeys.set(keys, verified);
    }
    if (verified.size >= MAX_VERIFIED_PER_LIST) verified.clear();
    verified.set(presented, match);
  }
  return match;
}

/**
 * Keys already verified, per loaded key list: a repeat caller skips the SHA-256 and the
 * comparisons. Only values that matched are kept (a wrong key can never fill it), so each map
 * holds at most the project's few current keys. A rotation, here or in another process, makes
 * the registry load a new key list, which starts with an empty map; the old one goes with its list.
 */
const verifiedKeys = new WeakMap<readonly KeyRecord[], Map<string, KeyRecord>>();
const MAX_VERIFIED_PER_LIST = 64;

function compareAll(keys: readonly KeyRecord[], presented: string, nowIso: string): KeyRecord | undefined {
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
