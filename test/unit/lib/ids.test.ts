import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRowId } from '../../../src/lib/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRowId (UUIDv7 from a pooled CSPRNG buffer)', () => {
  const ids = Array.from({ length: 5_000 }, () => newRowId());

  const scenarios: ReadonlyArray<readonly [string, () => void]> = [
    [
      'every id is a UUIDv7 (version 7, RFC 9562 variant)',
      () => {
        for (const id of ids) assert.match(id, UUID_V7);
      },
    ],
    [
      'ids are unique, across pool refills (5,000 ids are 20 refills of the 4 KiB pool)',
      () => {
        assert.equal(new Set(ids).size, ids.length);
      },
    ],
    [
      'ids made one after another sort in the order they were made (within a millisecond too)',
      () => {
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
      },
    ],
    [
      'the first 48 bits are the creation time in milliseconds',
      () => {
        const before = Date.now();
        const id = newRowId();
        const after = Date.now();
        const ms = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
        assert.ok(ms >= before && ms <= after + 1, `${ms} within ${before}..${after}`);
      },
    ],
    [
      'the random part changes from id to id (not a fixed tail)',
      () => {
        const tails = new Set(ids.map((id) => id.slice(-10)));
        assert.ok(tails.size > ids.length * 0.99);
      },
    ],
  ];
  for (const [name, check] of scenarios) it(name, check);
});
