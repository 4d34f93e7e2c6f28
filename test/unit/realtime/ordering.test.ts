/** Commit order for one feed (src/realtime/ordering.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoggedEvent } from '../../../src/changes/event-log.js';
import { FeedQueue, nextInLine } from '../../../src/realtime/ordering.js';

const events = (...seqs: number[]) => seqs.map((seq) => ({ seq, kind: 'row' }) as unknown as LoggedEvent);
const seqs = (list: readonly LoggedEvent[]) => list.map((event) => event.seq);

describe('next in line', () => {
  it('delivers the run that continues the cursor', () => {
    assert.deepEqual(seqs(nextInLine(4, events(5, 6, 7))), [5, 6, 7]);
  });
  it('skips what was delivered already (a commit of this process the poll read first)', () => {
    assert.deepEqual(seqs(nextInLine(6, events(5, 6, 7, 8))), [7, 8]);
  });
  it('stops at a gap: nothing after a number still committing goes first', () => {
    assert.deepEqual(seqs(nextInLine(4, events(5, 7, 8))), [5]);
    assert.deepEqual(seqs(nextInLine(4, events(6, 7))), []);
  });
  it('nothing new, nothing delivered', () => {
    assert.deepEqual(seqs(nextInLine(9, events())), []);
    assert.deepEqual(seqs(nextInLine(9, events(8, 9))), []);
  });
});

describe('feed queue', () => {
  it('runs steps one at a time, in the order queued, past a failing one (reported)', async () => {
    const errors: unknown[] = [];
    const queue = new FeedQueue((error) => errors.push(error));
    const log: string[] = [];
    let release!: () => void;
    queue.run(async () => {
      log.push('a start');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('a end');
    });
    queue.run(async () => {
      throw new Error('b failed');
    });
    queue.run(async () => void log.push('c'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['a start'], 'b and c wait for a');
    release();
    await queue.idle();
    assert.deepEqual(log, ['a start', 'a end', 'c']);
    assert.deepEqual(
      errors.map((error) => (error as Error).message),
      ['b failed'],
    );
  });

  it('a drain asked for while one waits is the same drain; one asked for while one runs is queued', async () => {
    const queue = new FeedQueue(() => undefined);
    let drains = 0;
    let release!: () => void;
    queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    queue.drainOnce(async () => void drains++);
    queue.drainOnce(async () => void drains++);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await queue.idle();
    assert.equal(drains, 1);
    let inside!: () => void;
    queue.drainOnce(
      () =>
        new Promise<void>((resolve) => {
          drains++;
          inside = resolve;
        }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    queue.drainOnce(async () => void drains++);
    inside();
    await queue.idle();
    assert.equal(drains, 3, 'a drain asked for during a running one runs after it');
  });
});
