/**
 * The SQLite backup of docs/deploy.md, done while the server runs: `VACUUM INTO` copies every
 * database file (system.db and projects/*.db) consistently, and a server started on the copy
 * serves the data as it was at the backup, keys and passwords included.
 * @engine sqlite — it is about the SQLite files.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { PASSWORD, seedBackedUpProject } from '../helpers/auth-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** What docs/deploy.md tells operators to run for each file, here through better-sqlite3. */
function vacuumInto(source: string, target: string): void {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

describe('SQLite online backup with VACUUM INTO', () => {
  const dirs: string[] = [];
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a copy taken while the server runs restores every project, row, key and password', async () => {
    const live = mkdtempSync(path.join(tmpdir(), 'rowbase-live-'));
    const backup = mkdtempSync(path.join(tmpdir(), 'rowbase-backup-'));
    dirs.push(live, backup);
    const server = await startTestServer({ DATABASE_URL: '' }, { dataDir: live });
    servers.push(server);
    const project = await seedBackedUpProject(server);

    mkdirSync(path.join(backup, 'projects'));
    vacuumInto(path.join(live, 'system.db'), path.join(backup, 'system.db'));
    for (const file of readdirSync(path.join(live, 'projects')).filter((name) => name.endsWith('.db'))) {
      vacuumInto(path.join(live, 'projects', file), path.join(backup, 'projects', file));
    }
    assert.equal(
      (
        await server.request('POST', '/p/backed-up/api/notes', {
          headers: project.admin,
          body: { body: 'after the backup' },
        })
      ).status,
      201,
    );

    const restored = await startTestServer({ DATABASE_URL: '' }, { dataDir: backup });
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
