/** Waiting out gaps in a feed's numbers (src/realtime/gap-watch.ts), on a hand-moved clock and an in-memory log. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GAP_GIVE_UP_MS, GapWatch } from '../../../src/realtime/gap-watch.js';
import { ManualClock, MemoryLog } from '../../helpers/memory-log.js';

describe('gap watch', () => {
  it('waits at a number still committing, and delivers it in place once it commits', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog();
    log.commit(1, 3);
    const watch = new GapWatch(clock);
    assert.equal(await watch.judge(1, 3, log), undefined, 'first sight only records the gap');
    assert.equal(await watch.judge(1, 3, log), undefined, 'the writer of 2 may still commit');
    log.commit(2);
    log.settle();
    assert.deepEqual(await watch.judge(1, 3, log), { cursor: 1, skipped: false }, 'the cursor stays: 2 is next');
  });

  it('moves past a rolled-back number once every transaction seen at the gap has ended', async () => {
    const log = new MemoryLog();
    log.commit(1, 3);
    const watch = new GapWatch(new ManualClock());
    await watch.judge(1, 3, log);
    log.settle();
    assert.deepEqual(await watch.judge(1, 3, log), { cursor: 2, skipped: false });
  });

  it('without a horizon, gives a gap up only after the give-up time on the injected clock', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog(false);
    log.commit(5, 9);
    const watch = new GapWatch(clock);
    assert.equal(await watch.judge(5, 9, log), undefined);
    clock.advance(GAP_GIVE_UP_MS);
    assert.equal(await watch.judge(5, 9, log), undefined, 'not before the time has passed');
    clock.advance(1);
    assert.deepEqual(await watch.judge(5, 9, log), { cursor: 8, skipped: true });
  });

  it('a horizon held back by a long transaction elsewhere still gives up after the give-up time', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog();
    log.commit(3);
    const watch = new GapWatch(clock);
    await watch.judge(0, 3, log);
    clock.advance(GAP_GIVE_UP_MS + 1);
    assert.deepEqual(await watch.judge(0, 3, log), { cursor: 2, skipped: true });
  });

  it('a new gap (the cursor moved) starts its wait again; clear forgets the old one', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog(false);
    const watch = new GapWatch(clock);
    await watch.judge(1, 3, log);
    clock.advance(GAP_GIVE_UP_MS + 1);
    assert.equal(await watch.judge(4, 6, log), undefined, 'another gap: first sight');
    watch.clear();
    clock.advance(GAP_GIVE_UP_MS + 1);
    assert.equal(await watch.judge(4, 6, log), undefined, 'after clear: first sight again');
  });

  it('tells onHold once per gap, on the first look after its first sight that finds it open', async () => {
    const held: unknown[] = [];
    const log = new MemoryLog();
    log.commit(1, 3);
    const watch = new GapWatch(new ManualClock(), GAP_GIVE_UP_MS, (gap) => held.push(gap));
    await watch.judge(1, 3, log);
    assert.deepEqual(held, [], 'first sight only records the gap');
    await watch.judge(1, 3, log);
    await watch.judge(1, 3, log);
    assert.deepEqual(held, [{ at: 2, next: 3 }], 'once, however often it is looked at');
    log.settle();
    assert.deepEqual(await watch.judge(1, 3, log), { cursor: 2, skipped: false });
    assert.equal(held.length, 1, 'a gap judged final is not a hold');
  });
});
