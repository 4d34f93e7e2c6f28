/**
 * The PostgreSQL backup of docs/deploy.md, done while the server runs: `pg_dump -Fc` of the
 * database, `pg_restore` into a new one, and a server started on the restored database serves
 * the data as it was at the dump, keys and passwords included.
 * @engine postgres — the PostgreSQL pass only.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { PASSWORD, seedBackedUpProject } from '../helpers/auth-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const run = promisify(execFile);

describe('PostgreSQL backup with pg_dump and pg_restore', () => {
  const databases: TestDatabase[] = [];
  const servers: TestServer[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-dump-'));
  after(async () => {
    for (const server of servers) await server.close();
    for (const database of databases) await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a dump taken while the server runs restores every project, row, key and password', async () => {
    const live = await createTestDatabase();
    const copy = await createTestDatabase();
    databases.push(live, copy);
    const server = await startTestServer({ DATABASE_URL: live.url });
    servers.push(server);
    const project = await seedBackedUpProject(server);

    const dump = path.join(dir, 'rowbase.dump');
    await run('pg_dump', ['--format=custom', `--file=${dump}`, live.url]);
    assert.equal(
      (
        await server.request('POST', '/p/backed-up/api/notes', {
          headers: project.admin,
          body: { body: 'after the dump' },
        })
      ).status,
      201,
    );
    await run('pg_restore', ['--no-owner', `--dbname=${copy.url}`, dump]);

    const restored = await startTestServer({ DATABASE_URL: copy.url });
    servers.push(restored);
    const notes = await restored.request('GET', '/p/backed-up/api/notes?sort=body', { headers: project.admin });
    assert.equal(notes.status, 200, notes.text);
    assert.deepEqual(
      notes.body.data.map((row: { body: string }) => row.body),
      ['one', 'two'],
    );
    const login = await restored.request('POST', '/p/backed-up/auth/login', {
      body: { email: 'kept@example.com', password: PASSWORD },
    });
    assert.equal(login.status, 200, login.text);
  });
});
