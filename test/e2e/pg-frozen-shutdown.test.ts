/**
 * SIGTERM while PostgreSQL is frozen (every server process SIGSTOPped: sockets open, nothing
 * answers, like a hung machine). The server must still stop: in-flight work ends at its
 * timeouts, and the connections, which the server will never acknowledge closing, are cut on
 * our side, so no open socket keeps the process alive. A cluster of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { postgresBinDir, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { testEngine } from '../helpers/test-database.js';

/** Statement and pool timeouts are 1.5 s and 2 s here; closing waits 2 s per step at most. */
const BOUND_MS = 15_000;

describe('SIGTERM with PostgreSQL frozen', {
  skip: testEngine() !== 'postgres' || postgresBinDir() === undefined,
}, () => {
  let cluster: PgCluster | undefined;
  let server: ServerProcess | undefined;
  let dir: string | undefined;
  after(async () => {
    await cluster?.resume();
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await cluster?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the server stops (exit 0) within the bound, it does not wait for the database forever', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rowbase-pg-frozen-stop-'));
    cluster = await startPgCluster();
    server = await startServerProcess(dir, {
      DATABASE_URL: cluster.url,
      PG_STATEMENT_TIMEOUT_MS: '1500',
      PG_POOL_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'fatal',
    });
    const created = await call(
      server.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PROCESS_PLATFORM_KEY },
      { name: 'Stop', id: 'stop' },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await cluster.freeze();
    server.child.kill('SIGTERM');
    const outcome = await Promise.race([
      server.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), BOUND_MS)),
    ]);
    assert.deepEqual(outcome, { code: 0, signal: null }, server.output());
  });
});
