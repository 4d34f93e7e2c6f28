/** When this process trims a project's event log (src/realtime/trim-schedule.ts), on a hand-moved clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrimSchedule } from '../../../src/realtime/trim-schedule.js';
import { ManualClock } from '../../helpers/memory-log.js';

describe('trim schedule', () => {
  it('trims a log written to once the interval has passed since the first write, then waits for the next write', () => {
    const clock = new ManualClock();
    const trims = new TrimSchedule(clock, 60_000, 600_000);
    assert.deepEqual(trims.due(), [], 'nothing written, nothing to trim');
    trims.wrote('a');
    clock.advance(30_000);
    trims.wrote('a');
    trims.wrote('b');
    clock.advance(29_999);
    assert.deepEqual(trims.due(), []);
    clock.advance(1);
    assert.deepEqual(trims.due(), ['a'], 'a is due a minute after its first write; b not yet');
    assert.deepEqual(trims.due(), [], 'a is forgotten until written again');
    clock.advance(30_000);
    assert.deepEqual(trims.due(), ['b']);
  });

  it('keeps the entries of the kept window, as of the clock now', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const trims = new TrimSchedule(clock, 60_000, 600_000);
    assert.equal(trims.keepFrom(), '2026-01-01T11:50:00.000Z');
    clock.advance(1_000);
    assert.equal(trims.keepFrom(), '2026-01-01T11:50:01.000Z');
  });
});
