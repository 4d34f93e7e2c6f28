/**
 * @engine sqlite
 * Omitted optional columns in a SQLite file written by an earlier version (issue 27, defect 1):
 * that version gave any column named `email_verified` a DDL `DEFAULT 0`, even on a plain table.
 * A row created without the column must still read back null: the server writes null for
 * every declared column left out, so no default stored in the file decides.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

/** Rewrites `table` in a project file as the earlier version created it: `email_verified` with DEFAULT 0. */
function giveEmailVerifiedTheOldDefault(file: string, table: string): void {
  const db = new Database(file);
  try {
    const sqlOf = (type: string, name: string) =>
      db.prepare('SELECT sql FROM sqlite_schema WHERE type = ? AND name = ?').pluck().get(type, name) as string;
    const indexes = db
      .prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
      .pluck()
      .all(table) as string[];
    const old = sqlOf('table', table)
      .replace('"email_verified" INTEGER', '"email_verified" INTEGER DEFAULT 0')
      .replace(`CREATE TABLE "${table}"`, 'CREATE TABLE "old_shape"');
    assert.match(old, /DEFAULT 0/);
    db.transaction(() => {
      db.exec(old);
      db.exec(`INSERT INTO "old_shape" SELECT * FROM "${table}"`);
      db.exec(`DROP TABLE "${table}"`);
      db.exec(`ALTER TABLE "old_shape" RENAME TO "${table}"`);
      for (const index of indexes) db.exec(index);
    })();
  } finally {
    db.close();
  }
}

describe('omitted optional columns in a file from an earlier version', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-old-file-'));
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    const first = await startTestServer({}, { dataDir });
    project = await createProject(first, 'old-file');
    await putTable(first, project, 'plain', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'email_verified', type: 'boolean' },
      ],
    });
    await first.close();
    giveEmailVerifiedTheOldDefault(path.join(dataDir, 'projects', `${project.id}.db`), 'plain');
    server = await startTestServer({}, { dataDir });
  });
  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('POST {} → email_verified reads back null, not the false of the DDL default', async () => {
    const created = await server.request('POST', `/p/${project.id}/api/plain`, { headers: project.admin, body: {} });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.email_verified, null);
    const read = await server.request('GET', `/p/${project.id}/api/plain/${created.body.data.id}`, {
      headers: project.admin,
    });
    assert.equal(read.body.data.email_verified, null);
  });

  it('POST with email_verified true still stores true', async () => {
    const created = await server.request('POST', `/p/${project.id}/api/plain`, {
      headers: project.admin,
      body: { email_verified: true },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.email_verified, true);
  });
});
