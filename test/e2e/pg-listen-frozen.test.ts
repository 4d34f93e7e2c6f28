/**
 * A LISTEN connection that dies silently (its backend frozen with SIGSTOP: the socket stays
 * open and nothing answers, as after a failover or a long network partition where no RST
 * ever arrives). TCP keepalive notices that only after the system default (7200 s plus
 * probes). Until the connection is known lost, every write to a watched table waits the full
 * two seconds for its own change notification (ChangeListener.sync) and notifications for
 * realtime are missed. The LISTEN connection must find out by itself, reconnect and
 * LISTEN again, so writes answer at their usual speed again. PostgreSQL only; a cluster of
 * its own, so only our own processes are signalled.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createAuthProject, patchSettings } from '../helpers/auth-fixtures.js';
import { postgresBinDir, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { testEngine } from '../helpers/test-database.js';

const DEADLINE_MS = 45_000;

describe('a silently dead LISTEN connection (PostgreSQL)', {
  skip: testEngine() !== 'postgres' || postgresBinDir() === undefined,
}, () => {
  let cluster: PgCluster | undefined;
  let server: TestServer | undefined;
  let frozen: number | undefined;
  after(async () => {
    if (frozen !== undefined) {
      try {
        process.kill(frozen, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await server?.close();
    await cluster?.destroy();
  });

  async function listenBackends(): Promise<number[]> {
    const client = new pg.Client({ connectionString: cluster!.url });
    await client.connect();
    try {
      const result = await client.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'rowbase-listen'");
      return result.rows.map((row: { pid: number }) => row.pid);
    } finally {
      await client.end();
    }
  }

  it('is noticed and replaced by itself; settings writes answer at their usual speed again', async (t) => {
    cluster = await startPgCluster();
    server = await startTestServer({ DATABASE_URL: cluster.url });
    const project = await createAuthProject(server);
    const before = await listenBackends();
    assert.equal(before.length, 1, `one LISTEN connection: ${before}`);
    frozen = before[0]!;
    process.kill(frozen, 'SIGSTOP');

    const started = Date.now();
    const timings: number[] = [];
    let replaced = false;
    while (Date.now() - started < DEADLINE_MS) {
      const begun = performance.now();
      // Every write is acknowledged, whatever the LISTEN connection's state.
      await patchSettings(server, project, { app_name: `try ${timings.length}` });
      timings.push(Math.round(performance.now() - begun));
      const now = await listenBackends();
      replaced = now.some((pid) => pid !== frozen);
      if (replaced && timings.at(-1)! < 1_000) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    t.diagnostic(`settings writes after the freeze (ms): ${timings.join(', ')}`);
    assert.ok(replaced, `no new LISTEN connection within ${DEADLINE_MS} ms; writes took ${timings.join(', ')} ms`);
    assert.ok(
      timings.at(-1)! < 1_000,
      `writes still wait for a notification that never comes: ${timings.join(', ')} ms`,
    );
  });
});
