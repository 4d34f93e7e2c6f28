/**
 * Redis outages under a running server with REDIS_URL (issue 10, item 4): a redis-server of
 * this test's own is stopped, started again and frozen while clients sign in.
 *
 * The decision tested here (docs/deploy.md, "When Redis is down"): rate limits fail open to
 * per-process counting. While Redis does not answer, sign-in keeps working (never a 503 or a
 * 500 because of Redis, never a hang), and the limits still hold, counted in the process's
 * memory; once Redis answers again, counting goes back to Redis by itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.js';
import { PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

const PASSWORD = 'correct horse battery';
const FAILED_LOGINS = 3;
/** No sign-in may take longer than this while Redis is down or frozen. */
const BOUND_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis stopped, restarted and frozen under a server with REDIS_URL (rate limits fail open)', () => {
  let redis: RedisProcess;
  let server: ServerProcess;
  let database: TestDatabase | undefined;
  let dir: string;

  const login = async (email: string, password: string): Promise<{ status: number; code?: string; ms: number }> => {
    const started = Date.now();
    const response = await fetch(`${server.url}/p/limits/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
      signal: AbortSignal.timeout(BOUND_MS * 2),
    });
    const body = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: body.error?.code, ms: Date.now() - started };
  };

  /** Wrong passwords for `email` until the limit: each 401, then 429 RATE_LIMITED; every answer within the bound. */
  const exhaust = async (email: string) => {
    for (let i = 0; i < FAILED_LOGINS; i++) {
      const wrong = await login(email, 'not the password');
      assert.equal(wrong.code, 'AUTH_INVALID_CREDENTIALS', `attempt ${i + 1}: ${JSON.stringify(wrong)}`);
      assert.ok(wrong.ms < BOUND_MS, `answered in ${wrong.ms} ms`);
    }
    const limited = await login(email, 'not the password');
    assert.equal(limited.status, 429, JSON.stringify(limited));
    assert.equal(limited.code, 'RATE_LIMITED');
  };

  const signUp = async (email: string) => {
    const response = await fetch(`${server.url}/p/limits/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    assert.equal(response.status, 201, await response.text());
  };

  const rateKeys = (email: string) => redis.keys(`rowbase:rl:login|limits|${email}`);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rowbase-redis-outage-'));
    redis = await startRedisProcess();
    database = testEngine() === 'postgres' ? await createTestDatabase() : undefined;
    server = await startServerProcess(dir, {
      REDIS_URL: redis.url,
      RATE_LIMITS: 'on',
      // Warnings and errors: the tests below read the lines that say where limits are counted.
      LOG_LEVEL: 'warn',
      ...(database && { DATABASE_URL: database.url }),
    });
    const created = await fetch(`${server.url}/v1/projects`, {
      method: 'POST',
      headers: { 'x-platform-key': PROCESS_PLATFORM_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Limits', id: 'limits' }),
    });
    const admin = {
      'x-admin-key': ((await created.json()) as { data: { admin_key: string } }).data.admin_key,
      'content-type': 'application/json',
    };
    const table = await fetch(`${server.url}/p/limits/v1/tables/users`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ auth_table: true, columns: [] }),
    });
    assert.equal(table.status, 201, await table.text());
    const settings = await fetch(`${server.url}/p/limits/v1/settings`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ rate_limits: { failed_logins_per_email: FAILED_LOGINS, per_address_per_minute: 1000 } }),
    });
    assert.equal(settings.status, 200, await settings.text());
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com', 'dee@example.com'])
      await signUp(email);
  });

  after(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await redis?.stop();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Redis up: failed logins are counted in Redis (3 × 401, then 429)', async () => {
    await exhaust('ada@example.com');
    assert.equal((await rateKeys('ada@example.com')).length, 1, 'the counter lives in Redis');
  });

  it('Redis stopped: sign-in works (no 503), and the limit still holds, counted in the process', async () => {
    await redis.stop();
    const ok = await login('bob@example.com', PASSWORD);
    assert.equal(ok.status, 200, JSON.stringify(ok));
    assert.ok(ok.ms < BOUND_MS, `answered in ${ok.ms} ms`);
    await exhaust('cy@example.com');
    assert.match(server.output(), /Redis does not answer: rate limits are counted in this process only/);
  });

  it('Redis started again: counting goes back to Redis by itself within seconds', async () => {
    await redis.start();
    const deadline = Date.now() + 8_000;
    let attempts = 0;
    while ((await rateKeys('dee@example.com')).length === 0 && Date.now() < deadline) {
      const answer = await login('dee@example.com', 'not the password');
      assert.ok(answer.status === 401 || answer.status === 429, JSON.stringify(answer));
      attempts++;
      await sleep(300);
    }
    assert.equal(
      (await rateKeys('dee@example.com')).length,
      1,
      `a failed login is counted in Redis again (after ${attempts} attempts)`,
    );
    const ok = await login('bob@example.com', PASSWORD);
    assert.equal(ok.status, 200);
    assert.match(server.output(), /Redis answers again: rate limits are shared again/);
  });

  it('Redis frozen (SIGSTOP, connection open, no answers): sign-in answered within the bound, not hung', async () => {
    redis.freeze();
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await login('bob@example.com', PASSWORD);
        assert.equal(ok.status, 200, JSON.stringify(ok));
        assert.ok(ok.ms < BOUND_MS, `answered in ${ok.ms} ms`);
      }
    } finally {
      redis.resume();
    }
  });

  it('the server process never exited', () => {
    assert.equal(server.child.exitCode, null, server.output());
    assert.doesNotMatch(server.output(), /Unhandled|uncaught/i);
  });

  it('SIGTERM while a frozen Redis holds an unanswered call: the server still stops (exit 0)', async () => {
    // Past the second in which hits skip Redis after the last
    // failure: this login's call goes to Redis and stays unanswered.
    await sleep(1_500);
    redis.freeze();
    try {
      const ok = await login('bob@example.com', PASSWORD);
      assert.equal(ok.status, 200, JSON.stringify(ok));
      server.child.kill('SIGTERM');
      const outcome = await Promise.race([server.exited, sleep(BOUND_MS * 3).then(() => 'still running')]);
      assert.deepEqual(outcome, { code: 0, signal: null }, server.output());
    } finally {
      redis.resume();
    }
  });
});
