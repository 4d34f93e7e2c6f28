/** Identifiers: UUIDv7 for rows (time-ordered), readable random ids for projects. */
import { randomFillSync } from 'node:crypto';
import { randomBase62 } from './random.js';

// Random bytes are drawn from the CSPRNG 4 KiB at a time rather than 16 bytes per id: a bulk
// request of 1,000 rows made 1,000 calls into the CSPRNG (about 4 µs each) with the uuid package.
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;
const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'));

// Monotonic within a millisecond (RFC 9562 §6.2 method 1, as the uuid package does it): a
// 31-bit counter seeded at random each new millisecond, so ids made in one process in one
// millisecond sort in the order they were made.
let lastMs = -Infinity;
let sequence = 0;

/** A new row id: a UUIDv7, so ids sort roughly by creation time (and in creation order within this process). */
export function newRowId(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const r = poolAt;
  poolAt += 16;
  let ms = Date.now();
  if (ms > lastMs) {
    sequence = ((pool[r + 6]! & 0x7f) << 24) | (pool[r + 7]! << 16) | (pool[r + 8]! << 8) | pool[r + 9]!;
    lastMs = ms;
  } else {
    sequence = (sequence + 1) | 0;
    // 2^31 ids in one millisecond: borrow the next one (the counter wraps to 0 only then).
    if (sequence === 0) lastMs++;
    ms = lastMs;
  }
  const high = Math.floor(ms / 0x100000000);
  const low = ms >>> 0;
  return (
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | ((sequence >>> 28) & 0x0f)]! +
    HEX[(sequence >>> 20) & 0xff]! +
    '-' +
    HEX[0x80 | ((sequence >>> 14) & 0x3f)]! +
    HEX[(sequence >>> 6) & 0xff]! +
    '-' +
    HEX[((sequence << 2) & 0xff) | (pool[r + 10]! & 0x03)]! +
    HEX[pool[r + 11]!]! +
    HEX[pool[r + 12]!]! +
    HEX[pool[r + 13]!]! +
    HEX[pool[r + 14]!]! +
    HEX[pool[r + 15]!]!
  );
}

/** A new project id matching `^[a-z0-9][a-z0-9-]{2,39}$`. */
export function newProjectId(): string {
  return `p-${randomBase62(12).toLowerCase()}`;
}
