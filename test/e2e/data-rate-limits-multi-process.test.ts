/**
 * The data API's rate limits (contract §18, `data_rate_limits`) are counted once across
 * processes: two real `rowbase serve` processes on one PostgreSQL database, with requests
 * alternating between them, share one count, whether the counters live in PostgreSQL or in
 * Redis (REDIS_URL, a redis-server of the test's own).
 * @engine postgres — the PostgreSQL pass only (SQLite is one process by design).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startProcessPair, type ProcessPair } from '../helpers/process-pair.js';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.js';
import { call, type ServerProcess } from '../helpers/server-process.js';

const project = 'limited';
const p = (route: string) => `/p/${project}${route}`;

/** Sets the limits, declares an open table and returns the headers of a fresh pk_ key. */
async function prepare(pair: ProcessPair): Promise<Record<string, string>> {
  const open = { list: '', view: '', create: '', update: '', delete: '' };
  const table = await call(pair.a.url, 'PUT', p('/v1/tables/notes'), pair.admin, {
    columns: [{ name: 'title', type: 'text' }],
    rules: open,
  });
  assert.equal(table.status, 201, JSON.stringify(table.body));
  const limits = { data_rate_limits: { reads_per_minute: 4, writes_per_minute: 2 } };
  assert.equal((await call(pair.b.url, 'PATCH', p('/v1/settings'), pair.admin, limits)).status, 200);
  const rotated = await call(pair.a.url, 'POST', p('/v1/rotate-keys'), pair.admin, { type: 'pk' });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  return { 'x-api-key': rotated.body.data.publishable_key };
}

async function assertShared(pair: ProcessPair, anon: Record<string, string>): Promise<void> {
  const read = (server: ServerProcess) => call(server.url, 'GET', p('/api/notes'), anon);
  for (const server of [pair.a, pair.b, pair.a, pair.b]) assert.equal((await read(server)).status, 200);
  for (const server of [pair.a, pair.b]) {
    const limited = await read(server);
    assert.equal(limited.status, 429, 'the 5th read, on either process');
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
  }
  const write = (server: ServerProcess, title: string) => call(server.url, 'POST', p('/api/notes'), anon, { title });
  assert.equal((await write(pair.a, 'one')).status, 201);
  assert.equal((await write(pair.b, 'two')).status, 201);
  assert.equal((await write(pair.a, 'three')).status, 429, 'B counted the write A saw');
  const rows = await call(pair.b.url, 'GET', p('/api/notes'), pair.admin);
  assert.equal(rows.body.meta.total, 2, 'nothing written past the limit');
}

describe('two processes count data API requests once: counters in PostgreSQL', () => {
  let pair: ProcessPair;
  before(async () => {
    pair = await startProcessPair(project, { RATE_LIMITS: 'on' });
  });
  after(() => pair.stop());

  it('4 reads and 2 writes a minute, alternating processes: the 5th read and 3rd write → 429', async () => {
    await assertShared(pair, await prepare(pair));
  });
});

describe('two processes count data API requests once: counters in Redis', () => {
  let redis: RedisProcess;
  let pair: ProcessPair;
  before(async () => {
    redis = await startRedisProcess();
    pair = await startProcessPair(project, { RATE_LIMITS: 'on', REDIS_URL: redis.url });
  });
  after(async () => {
    await pair.stop();
    await redis.stop();
  });

  it('the same limits, counted in Redis: one count for both processes', async () => {
    await assertShared(pair, await prepare(pair));
    assert.equal((await redis.keys(`rowbase:rl:data|${project}|*`)).length, 2, 'a read and a write window');
  });
});
