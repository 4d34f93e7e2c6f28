/**
 * The platform key guards /v1/projects. From PLATFORM_KEY when set; otherwise generated on
 * first start, printed once, and only its hash kept.
 */
import { timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../lib/random.js';
import { hashSecret } from '../lib/secrets.js';
import { sql } from '../query/sql-tree.js';
import type { Database } from '../store/types.js';
import { PLATFORM_SETTINGS } from '../store/system-tables.js';

const HASH_SETTING = 'platform_key_hash';

export interface PlatformKey {
  /** True when the presented key is the platform key (constant time). */
  matches(presented: string): boolean;
  /** The key in full, only on the start that generated it. */
  readonly generated: string | undefined;
  /**
   * Names this platform key without revealing it (a hash of its stored hash): dashboard tokens
   * record it, so that a token made from an earlier PLATFORM_KEY stops working with it.
   */
  readonly fingerprint: string;
}

/** Loads the platform key's hash, generating and storing a key when none exists and none is configured. */
export async function loadPlatformKey(system: Database, configured: string | undefined): Promise<PlatformKey> {
  let hash: string;
  let generated: string | undefined;
  if (configured !== undefined) {
    hash = hashSecret(configured);
  } else {
    const row = await system.first({
      kind: 'select',
      table: PLATFORM_SETTINGS.table,
      columns: PLATFORM_SETTINGS.columns,
      where: sql.eq('name', HASH_SETTING),
    });
    if (row) {
      hash = String(row.value);
    } else {
      generated = `rb_${randomBase62(40)}`;
      hash = hashSecret(generated);
      await system.run({
        kind: 'insert',
        table: PLATFORM_SETTINGS.table,
        columns: PLATFORM_SETTINGS.columns,
        rows: [[HASH_SETTING, hash]],
        onConflictDoNothing: true,
      });
      // Another process may have won the race; the stored hash is the one that counts.
      const stored = await system.first({
        kind: 'select',
        table: PLATFORM_SETTINGS.table,
        columns: PLATFORM_SETTINGS.columns,
        where: sql.eq('name', HASH_SETTING),
      });
      if (stored && stored.value !== hash) {
        hash = String(stored.value);
        generated = undefined;
      }
    }
  }
  const expected = Buffer.from(hash, 'hex');
  return {
    generated,
    fingerprint: hashSecret(`platform-key-fingerprint:${hash}`),
    matches: (presented) => timingSafeEqual(Buffer.from(hashSecret(presented), 'hex'), expected),
  };
}
