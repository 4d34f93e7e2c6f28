/**
 * The project cache across processes (PostgreSQL): a project loaded while another process
 * rotates its keys must not stay cached with the old keys. The load in flight read the keys
 * before the rotation; a later request of the same process saw the new change counter and
 * cleared the cache meanwhile; the old state must not land in the cache after that clear,
 * or the revoked admin key keeps working in that process until some other change.
 * The load is held in the middle by a table lock taken from a separate connection, so the
 * order is forced rather than hoped for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { assertError } from '../helpers/assert-error.js';
import { eventually } from '../helpers/eventually.js';
import { createProject, startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

describe("project cache: a load that straddles another process's key rotation (PostgreSQL)", {
  skip: testEngine() !== 'postgres',
}, () => {
  let database: TestDatabase;
  let serverA: TestServer;
  let serverB: TestServer;
  let locker: pg.Client;
  before(async () => {
    database = await createTestDatabase();
    serverA = await startTestServer({ DATABASE_URL: database.url });
    serverB = await startTestServer({ DATABASE_URL: database.url });
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  after(async () => {
    await locker?.end();
    await serverA?.close();
    await serverB?.close();
    await database?.drop();
  });

  /** Resolves once some connection waits for a lock on project_settings. */
  async function waitForBlockedLoad(): Promise<void> {
    await eventually(
      async () => {
        // pg_locks, not pg_stat_activity: a statement blocked while it is parsed still shows the previous query's text.
        const waiting = await locker.query(
          'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted ' +
            "AND relation = 'rowbase.project_settings'::regclass",
        );
        return waiting.rows[0].n > 0;
      },
      { everyMs: 20, what: 'the project load to wait for the lock' },
    );
  }

  it('the admin key rotated by process B stops working in A (401 AUTH_INVALID_KEY) for good', async () => {
    const project = await createProject(serverA);
    const oldKey = project.admin;
    // A change A has not seen yet: A's next lookup reloads the project. B has it loaded.
    await locker.query('UPDATE rowbase.projects SET name = name WHERE id = $1', [project.id]);
    assert.equal((await serverB.request('GET', `/p/${project.id}/v1/settings`, { headers: oldKey })).status, 200);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE rowbase.project_settings IN ACCESS EXCLUSIVE MODE');
    // A starts loading the project: it reads the keys (the old admin key), then waits on the settings.
    const inFlight = serverA.request('GET', `/p/${project.id}/v1/settings`, { headers: oldKey });
    await waitForBlockedLoad();
    // Meanwhile B rotates the admin key (no grace period: the old one stops at once).
    const rotated = await serverB.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: oldKey,
      body: { type: 'sk' },
    });
    assert.equal(rotated.status, 200, rotated.text);
    const newKey = { 'x-admin-key': rotated.body.data.admin_key as string };
    // Another request of A sees the new change counter (and clears A's cache) while the load still waits.
    assertError(
      await serverA.request('GET', '/p/no-such-project/api/notes', { headers: newKey }),
      404,
      'PROJECT_NOT_FOUND',
    );
    await locker.query('COMMIT');
    // The load in flight finishes (its answer was decided with the keys it read).
    await inFlight;

    assertError(
      await serverA.request('GET', `/p/${project.id}/v1/settings`, { headers: oldKey }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(
      await serverB.request('GET', `/p/${project.id}/v1/settings`, { headers: oldKey }),
      401,
      'AUTH_INVALID_KEY',
    );
    assert.equal((await serverA.request('GET', `/p/${project.id}/v1/settings`, { headers: newKey })).status, 200);
  });
});
