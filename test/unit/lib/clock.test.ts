import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isoNow } from '../../../src/lib/clock.js';

describe('isoNow', () => {
  it('formats any sequence of readings exactly as Date#toISOString (its one-entry cache is never stale)', () => {
    const instant = fc.integer({ min: 0, max: 253_402_300_799_999 }); // up to 9999-12-31T23:59:59.999Z
    fc.assert(
      fc.property(
        fc.array(fc.oneof(instant, fc.constant(1_700_000_000_000), fc.constant(1_700_000_000_001)), {
          minLength: 1,
          maxLength: 20,
        }),
        (readings) => {
          for (const ms of readings) assert.equal(isoNow({ now: () => ms }), new Date(ms).toISOString());
        },
      ),
    );
  });
});
