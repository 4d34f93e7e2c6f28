import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildMemoryRateLimiter } from '../../../src/auth/memory-rate-limiter.js';
import type { Clock } from '../../../src/lib/clock.js';

function fakeClock(): Clock & { advance(seconds: number): void } {
  let ms = 1_000_000;
  return {
    now: () => ms,
    advance: (seconds) => {
      ms += seconds * 1000;
    },
  };
}

describe('buildMemoryRateLimiter', () => {
  it('allows `limit` hits per window, refuses the next with the seconds left, opens after the window', async () => {
    const clock = fakeClock();
    const limiter = buildMemoryRateLimiter({ clock });
    for (let i = 0; i < 3; i++) assert.equal((await limiter.consume('k', 3, 60)).allowed, true);
    clock.advance(20);
    assert.deepEqual(await limiter.consume('k', 3, 60), { allowed: false, retryAfterSeconds: 40 });
    clock.advance(40);
    assert.equal((await limiter.consume('k', 3, 60)).allowed, true);
  });

  it('refused hits are not counted, so hammering does not extend the window', async () => {
    const clock = fakeClock();
    const limiter = buildMemoryRateLimiter({ clock });
    await limiter.consume('k', 1, 10);
    for (let i = 0; i < 5; i++) await limiter.consume('k', 1, 10);
    clock.advance(10);
    assert.equal((await limiter.consume('k', 1, 10)).allowed, true);
  });

  it('refund gives a slot back; keys are independent', async () => {
    const limiter = buildMemoryRateLimiter({ clock: fakeClock() });
    await limiter.consume('a', 1, 60);
    assert.equal((await limiter.consume('a', 1, 60)).allowed, false);
    assert.equal((await limiter.consume('b', 1, 60)).allowed, true);
    await limiter.refund('a');
    assert.equal((await limiter.consume('a', 1, 60)).allowed, true);
    await limiter.refund('never-seen');
  });

  it('stays within maxKeys: expired windows go first, then the oldest keys', async () => {
    const clock = fakeClock();
    const limiter = buildMemoryRateLimiter({ clock, maxKeys: 10 });
    for (let i = 0; i < 10; i++) await limiter.consume(`old${i}`, 1, 5);
    clock.advance(6);
    for (let i = 0; i < 10; i++) await limiter.consume(`live${i}`, 1, 60);
    // The live keys survived the sweep of the expired ones: all ten are still counted.
    for (let i = 0; i < 10; i++) assert.equal((await limiter.consume(`live${i}`, 1, 60)).allowed, false, `live${i}`);
    for (let i = 0; i < 100; i++) await limiter.consume(`flood${i}`, 1, 60);
    // Flooding can only reset the oldest counters: memory stays bounded and newer keys still count.
    assert.equal((await limiter.consume('flood99', 1, 60)).allowed, false);
  });
});
