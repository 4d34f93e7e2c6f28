import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore, SemaphoreFullError } from '../../../src/lib/semaphore.js';

/** A unit of work that finishes when `release` is called. */
function gate(): { work: () => Promise<string>; release: () => void; started: () => boolean } {
  let release!: () => void;
  let started = false;
  const done = new Promise<string>((resolve) => (release = () => resolve('done')));
  return {
    work: () => {
      started = true;
      return done;
    },
    release,
    started: () => started,
  };
}

describe('Semaphore', () => {
  it('runs `limit` at once, queues up to `maxWaiting` in order, refuses the next with SemaphoreFullError', async () => {
    const slots = new Semaphore(1, 2);
    const [a, b, c] = [gate(), gate(), gate()];
    const running = [slots.run(a.work), slots.run(b.work), slots.run(c.work)];
    await assert.rejects(
      slots.run(async () => 'never'),
      SemaphoreFullError,
    );
    assert.deepEqual([a.started(), b.started(), c.started()], [true, false, false]);
    a.release();
    await running[0];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([b.started(), c.started()], [true, false], 'the first waiter got the slot');
    const d = gate();
    running.push(slots.run(d.work));
    await assert.rejects(
      slots.run(async () => 'never'),
      SemaphoreFullError,
      'b running, c and d waiting: full again',
    );
    b.release();
    c.release();
    d.release();
    assert.deepEqual(await Promise.all(running), ['done', 'done', 'done', 'done']);
    assert.equal(await slots.run(async () => 'free'), 'free');
  });

  it('without maxWaiting the queue is unbounded (the default)', async () => {
    const slots = new Semaphore(1);
    const first = gate();
    const running = slots.run(first.work);
    const queued = Array.from({ length: 100 }, (_, i) => slots.run(async () => i));
    first.release();
    assert.equal(await running, 'done');
    assert.equal((await Promise.all(queued)).length, 100);
  });
});
