/**
 * No forgot-password mail is lost (issue 10 item 3): the request is stored before the 200,
 * so a server killed (SIGKILL) right after answering still sends every reset mail once it
 * is restarted, and mails nobody for the unknown addresses asked in the same burst. The
 * server is a real child process in development mode (no SMTP_URL), so a mail is in the
 * project's outbox (GET /p/{id}/v1/emails) once resolved; on PostgreSQL the restarted process
 * reads the same database. A request the killed process had claimed waits for its lease
 * (10 s) before the next process resolves it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';
import { eventually } from '../helpers/eventually.js';

const PROJECT = 'durable-reset';
const ORIGIN = 'https://app.example.com';
const KNOWN = 24;
const UNKNOWN = 8;
// Kill once this many requests were answered: the others are still in flight, so the
// process is busy and has not yet caught up with the answered ones.
const KILL_AFTER_ANSWERS = 8;

/** Requests stored but not yet resolved to a mail (read from the stopped server's storage). */
async function unresolvedRequests(dataDir: string, database: TestDatabase | undefined): Promise<number> {
  if (database) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return Number(
        (await client.query("SELECT count(*) AS n FROM rowbase.mail_queue WHERE status = 'request'")).rows[0].n,
      );
    } finally {
      await client.end();
    }
  }
  const db = new Database(path.join(dataDir, 'system.db'));
  try {
    return Number(db.prepare("SELECT count(*) FROM mail_queue WHERE status = 'request'").pluck().get());
  } finally {
    db.close();
  }
}

describe('forgot-password survives SIGKILL right after its answer', () => {
  const dirs: string[] = [];
  const children: ServerProcess[] = [];
  let database: TestDatabase | undefined;
  after(async () => {
    for (const server of children)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('every answered request for a known email is mailed after the restart; unknown emails get nothing', async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-forgot-'));
    dirs.push(dataDir);
    database = testEngine() === 'postgres' ? await createTestDatabase() : undefined;
    const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {};
    const first = await startServerProcess(dataDir, env);
    children.push(first);

    const created = await call(
      first.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PROCESS_PLATFORM_KEY },
      { name: PROJECT, id: PROJECT },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const admin = { 'x-admin-key': created.body.data.admin_key as string };
    assert.equal(
      (await call(first.url, 'PUT', `/p/${PROJECT}/v1/tables/users`, admin, { auth_table: true, columns: [] })).status,
      201,
    );
    assert.equal(
      (await call(first.url, 'PUT', `/p/${PROJECT}/v1/redirect-origins`, admin, { allowed_redirect_origins: [ORIGIN] }))
        .status,
      200,
    );
    const known = Array.from({ length: KNOWN }, (_, i) => `user${i}@example.com`);
    for (const email of known) {
      const signup = await call(
        first.url,
        'POST',
        `/p/${PROJECT}/auth/signup`,
        {},
        { email, password: 'correct horse battery' },
      );
      assert.equal(signup.status, 201, JSON.stringify(signup.body));
    }
    const unknown = Array.from({ length: UNKNOWN }, (_, i) => `ghost${i}@example.com`);
    // Known and unknown interleaved, all at once.
    const emails = known.flatMap((email, i) => (i < UNKNOWN ? [email, unknown[i]!] : [email]));

    const answered: string[] = [];
    let killed = false;
    await Promise.all(
      emails.map(async (email) => {
        try {
          const response = await call(
            first.url,
            'POST',
            `/p/${PROJECT}/auth/forgot-password`,
            {},
            { email, redirect_url: `${ORIGIN}/reset` },
          );
          if (killed) return;
          assert.equal(response.status, 200, JSON.stringify(response.body));
          answered.push(email);
          if (answered.length >= KILL_AFTER_ANSWERS && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch {
          // The connection died with the process: this request was never answered.
        }
      }),
    );
    if (!killed) first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    const answeredKnown = answered.filter((email) => known.includes(email));
    assert.ok(answeredKnown.length >= 1, `answered before the kill: ${answered.join(', ')}`);
    t.diagnostic(
      `${answered.length} answered before SIGKILL (${answeredKnown.length} known); ` +
        `${await unresolvedRequests(dataDir, database)} request(s) still unresolved in storage`,
    );

    const second = await startServerProcess(dataDir, env);
    children.push(second);
    const outbox = async (): Promise<{ to: string; subject: string; text: string }[]> => {
      const response = await call(second.url, 'GET', `/p/${PROJECT}/v1/emails?limit=1000`, admin);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.data;
    };
    // Every stored request is resolved (to a mail or to nothing) by the restarted server.
    await eventually(async () => (await unresolvedRequests(dataDir, database)) === 0, {
      timeoutMs: 20_000,
      everyMs: 100,
      what: 'every stored request to be resolved after the restart',
    });
    const mails = await outbox();
    for (const email of answeredKnown) {
      const mail = mails.find((m) => m.to === email);
      assert.ok(mail, `no reset mail to ${email}, whose forgot-password was answered 200 before the kill`);
      assert.match(mail.subject, /reset/i);
      assert.match(mail.text, new RegExp(`${ORIGIN.replaceAll('.', '\\.')}/reset\\?token=[A-Za-z0-9_-]{43}`));
    }
    assert.deepEqual(
      mails.filter((mail) => unknown.includes(mail.to)),
      [],
      'no mail to an address without an account',
    );

    // The mailed link works on the restarted server.
    const mail = mails.find((m) => m.to === answeredKnown[0])!;
    const token = new URL(/https:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token');
    const reset = await call(
      second.url,
      'POST',
      `/p/${PROJECT}/auth/reset-password`,
      {},
      { token, new_password: 'a brand new passphrase' },
    );
    assert.equal(reset.status, 200, JSON.stringify(reset.body));

    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.output());
  });
});
