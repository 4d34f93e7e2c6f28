/** The hub's periodic work (src/realtime/intervals.ts), on Node's mocked timers. */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { Intervals } from '../../../src/realtime/intervals.js';

describe('intervals', () => {
  it('runs each task at its own interval, starts once, and stops together', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const runs = { ping: 0, poll: 0 };
      const intervals = new Intervals();
      const tasks = [
        { everyMs: 100, run: () => runs.ping++ },
        { everyMs: 30, run: () => runs.poll++ },
      ];
      intervals.start(tasks);
      intervals.start(tasks);
      assert.equal(intervals.running, true);
      mock.timers.tick(300);
      assert.deepEqual(runs, { ping: 3, poll: 10 }, 'a second start adds no timers');
      intervals.stop();
      assert.equal(intervals.running, false);
      mock.timers.tick(300);
      assert.deepEqual(runs, { ping: 3, poll: 10 });
    } finally {
      mock.timers.reset();
    }
  });
});
