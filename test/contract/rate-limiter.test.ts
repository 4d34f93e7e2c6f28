/**
 * The RateLimiter contract on every implementation: memory (one process), PostgreSQL and
 * Redis (shared by several processes). Fixed windows timed by the server's clock, refused
 * hits not counted, refunds, and for the shared ones: two instances (two processes) see the
 * same counters, and concurrent hits never let more than the limit through.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { buildMemoryRateLimiter } from '../../src/auth/memory-rate-limiter.js';
import type { RateLimiter } from '../../src/auth/rate-limiter.js';
import { buildPostgresEngine } from '../../src/store/postgres/pg-engine.js';
import { buildRedisRateLimiter } from '../../src/store/redis/redis-rate-limiter.js';
import type { StorageEngine } from '../../src/store/types.js';
import { isPostgresReachable } from '../helpers/test-database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { TestClock } from '../helpers/test-server.js';

interface LimiterBackend {
  readonly name: string;
  readonly shared: boolean;
  /** A new limiter instance on the backend (a new process, for shared ones). */
  open(clock: TestClock): Promise<RateLimiter>;
  dispose(): Promise<void>;
}

const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function isRedisReachable(): Promise<boolean> {
  const client = createClient({ url: redisUrl, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    await client.close();
    return true;
  } catch {
    return false;
  }
}

async function backends(): Promise<LimiterBackend[]> {
  const list: LimiterBackend[] = [
    {
      name: 'memory',
      shared: false,
      open: async (clock) => buildMemoryRateLimiter({ clock }),
      dispose: async () => undefined,
    },
  ];
  if ((await isPostgresReachable()) || process.env.ROWBASE_REQUIRE_POSTGRES === '1') {
    let database: TestDatabase | undefined;
    const engines: StorageEngine[] = [];
    list.push({
      name: 'postgres',
      shared: true,
      async open(clock) {
        database ??= await createTestDatabase();
        const engine = await buildPostgresEngine({ url: database.url, maxConnections: 4 });
        engines.push(engine);
        return engine.buildRateLimiter(clock);
      },
      async dispose() {
        for (const engine of engines) await engine.close();
        await database?.drop();
      },
    });
  } else {
    console.log('SKIPPED: PostgreSQL rate limiter (no PostgreSQL server)');
  }
  // CI sets TEST_REDIS_URL and starts Redis: there, an unreachable Redis fails instead of skipping.
  if ((await isRedisReachable()) || process.env.TEST_REDIS_URL) {
    const prefix = `rowbase-test:${randomBytes(6).toString('hex')}:`;
    const limiters: RateLimiter[] = [];
    list.push({
      name: 'redis',
      shared: true,
      async open(clock) {
        const limiter = await buildRedisRateLimiter({ url: redisUrl, clock, keyPrefix: prefix });
        limiters.push(limiter);
        return limiter;
      },
      async dispose() {
        for (const limiter of limiters) await limiter.close?.();
      },
    });
  } else {
    console.log(`SKIPPED: Redis rate limiter (no Redis at ${redisUrl}; set TEST_REDIS_URL)`);
  }
  return list;
}

for (const backend of await backends()) {
  describe(`rate limiter contract on ${backend.name}`, () => {
    const clock = new TestClock(Date.parse('2026-05-01T00:00:00Z'));
    let limiter: RateLimiter;
    let n = 0;
    const key = () => `k${++n}:${backend.name}`;
    before(async () => {
      limiter = await backend.open(clock);
    });
    after(() => backend.dispose());

    it('allows `limit` hits per window, then refuses with the seconds left', async () => {
      const k = key();
      for (let i = 0; i < 3; i++)
        assert.deepEqual(await limiter.consume(k, 3, 60), { allowed: true, retryAfterSeconds: 0 });
      clock.advance(20);
      const refused = await limiter.consume(k, 3, 60);
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSeconds, 40);
    });

    it('a new window opens when the old one ends; refused hits did not extend it', async () => {
      const k = key();
      await limiter.consume(k, 1, 60);
      clock.advance(30);
      assert.equal((await limiter.consume(k, 1, 60)).allowed, false);
      clock.advance(30);
      assert.equal((await limiter.consume(k, 1, 60)).allowed, true);
    });

    it('a refund gives one slot back', async () => {
      const k = key();
      await limiter.consume(k, 2, 60);
      await limiter.consume(k, 2, 60);
      assert.equal((await limiter.consume(k, 2, 60)).allowed, false);
      await limiter.refund(k);
      assert.equal((await limiter.consume(k, 2, 60)).allowed, true);
      assert.equal((await limiter.consume(k, 2, 60)).allowed, false);
    });

    it('keys count separately', async () => {
      const [a, b] = [key(), key()];
      await limiter.consume(a, 1, 60);
      assert.equal((await limiter.consume(a, 1, 60)).allowed, false);
      assert.equal((await limiter.consume(b, 1, 60)).allowed, true);
    });

    it('two instances share counters, and concurrent hits let exactly `limit` through (shared backends)', async () => {
      if (!backend.shared) {
        // Memory counters belong to one process by design; a second instance starts from zero.
        const other = await backend.open(clock);
        const k = key();
        await limiter.consume(k, 1, 60);
        assert.equal((await other.consume(k, 1, 60)).allowed, true);
        return;
      }
      const other = await backend.open(clock);
      const k = key();
      await limiter.consume(k, 2, 60);
      await other.consume(k, 2, 60);
      assert.equal((await limiter.consume(k, 2, 60)).allowed, false, 'the second instance counted against the first');
      const burst = key();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? limiter : other).consume(burst, 7, 60)),
      );
      assert.equal(results.filter((r) => r.allowed).length, 7);
    });
  });
}
