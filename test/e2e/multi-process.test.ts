/**
 * Several processes on one PostgreSQL database behave as one service (issue 4): two real
 * `rowbase serve` processes share a fresh database, and requests alternate between them.
 * Whatever one process changes (keys, JWT secret, password, logout, schema, settings) the
 * other honours on the very next request; rate limits are counted once for both; and the
 * mail queue, drained by both workers at once, sends every mail exactly once (counted by a
 * real SMTP receiver).
 * @engine postgres — the PostgreSQL pass only (SQLite is one process by design).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { eventually } from '../helpers/eventually.js';

const PASSWORD = 'correct horse battery';
const MAILS = 16;

describe('two server processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let smtp: SmtpReceiver;
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: Record<string, string>;
  const dirs: string[] = [];
  const project = 'shared';
  const p = (route: string) => `/p/${project}${route}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  before(async () => {
    database = await createTestDatabase();
    smtp = await startSmtpReceiver();
    const env = { DATABASE_URL: database.url, SMTP_URL: smtp.url, RATE_LIMITS: 'on' };
    const dir = () => {
      const made = mkdtempSync(path.join(tmpdir(), 'rowbase-multi-'));
      dirs.push(made);
      return made;
    };
    // Started together on an empty database: their migrations must not race.
    [a, b] = await Promise.all([startServerProcess(dir(), env), startServerProcess(dir(), env)]);
    const created = await call(
      a.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PROCESS_PLATFORM_KEY },
      { name: project, id: project },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    admin = { 'x-admin-key': created.body.data.admin_key };
    const table = await call(b.url, 'PUT', p('/v1/tables/users'), admin, {
      columns: [{ name: 'name', type: 'text' }],
      auth_table: true,
      verify_email: true,
    });
    assert.equal(table.status, 201, JSON.stringify(table.body));
  });

  after(async () => {
    for (const server of [a, b]) {
      if (!server) continue;
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await smtp?.close();
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const signUp = async (server: ServerProcess, email: string) => {
    const response = await call(server.url, 'POST', p('/auth/signup'), {}, { email, password: PASSWORD, name: email });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body as { token: string; refresh_token: string; user: { id: string } };
  };

  it('a project created on one process is served by the other at once', async () => {
    const listed = await call(b.url, 'GET', p('/v1/tables'), admin);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.map((t: { name: string }) => t.name),
      ['users'],
    );
  });

  it('key rotation on A: the old admin key fails on B at once, the new one works', async () => {
    assert.equal((await call(b.url, 'GET', p('/v1/settings'), admin)).status, 200, 'B has the key cached');
    const rotated = await call(a.url, 'POST', p('/v1/rotate-keys'), admin, { type: 'sk' });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const old = await call(b.url, 'GET', p('/v1/settings'), admin);
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, 'AUTH_INVALID_KEY');
    admin = { 'x-admin-key': rotated.body.data.admin_key };
    assert.equal((await call(b.url, 'GET', p('/v1/settings'), admin)).status, 200);
  });

  it('JWT-secret rotation on B: tokens fail on A at once', async () => {
    const user = await signUp(a, 'jwt@example.com');
    assert.equal((await call(a.url, 'GET', p('/auth/me'), bearer(user.token))).status, 200, 'A accepts the token');
    assert.equal((await call(b.url, 'POST', p('/v1/rotate-jwt-secret'), admin)).status, 200);
    const me = await call(a.url, 'GET', p('/auth/me'), bearer(user.token));
    assert.equal(me.status, 401);
    assert.equal(me.body.error.code, 'AUTH_INVALID_TOKEN');
    const refreshed = await call(a.url, 'POST', p('/auth/refresh'), {}, { refresh_token: user.refresh_token });
    assert.equal(refreshed.status, 200, 'refresh tokens survive the rotation');
    assert.equal(
      (await call(b.url, 'GET', p('/auth/me'), bearer(refreshed.body.token))).status,
      200,
      'B accepts a token signed with the new secret',
    );
  });

  it('password change on A: older access tokens fail on B at once', async () => {
    const user = await signUp(b, 'pw@example.com');
    assert.equal((await call(b.url, 'GET', p('/auth/me'), bearer(user.token))).status, 200);
    const changed = await call(a.url, 'POST', p('/auth/change-password'), bearer(user.token), {
      current_password: PASSWORD,
      new_password: 'a new long passphrase',
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const old = await call(b.url, 'GET', p('/auth/me'), bearer(user.token));
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, 'AUTH_INVALID_TOKEN');
    assert.equal((await call(b.url, 'GET', p('/auth/me'), bearer(changed.body.token))).status, 200);
  });

  it('logout on B: the session ends on A at once (access and refresh token)', async () => {
    const user = await signUp(a, 'bye@example.com');
    assert.equal((await call(a.url, 'GET', p('/auth/me'), bearer(user.token))).status, 200);
    assert.equal((await call(b.url, 'POST', p('/auth/logout'), bearer(user.token))).status, 204);
    assert.equal((await call(a.url, 'GET', p('/auth/me'), bearer(user.token))).status, 401);
    assert.equal(
      (await call(a.url, 'POST', p('/auth/refresh'), {}, { refresh_token: user.refresh_token })).status,
      401,
    );
  });

  it('schema change on A: B writes and filters the new column at once', async () => {
    await call(a.url, 'PUT', p('/v1/tables/notes'), admin, { columns: [{ name: 'body', type: 'text' }] });
    assert.equal(
      (await call(b.url, 'POST', p('/api/notes'), admin, { body: 'first' })).status,
      201,
      'B has the schema cached',
    );
    const refused = await call(b.url, 'POST', p('/api/notes'), admin, { body: 'x', mood: 'happy' });
    assert.equal(refused.body.error.code, 'VALIDATION_UNKNOWN_COLUMN');
    const changed = await call(a.url, 'PUT', p('/v1/tables/notes'), admin, {
      columns: [
        { name: 'body', type: 'text' },
        { name: 'mood', type: 'text' },
      ],
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const written = await call(b.url, 'POST', p('/api/notes'), admin, { body: 'second', mood: 'happy' });
    assert.equal(written.status, 201, JSON.stringify(written.body));
    const filtered = await call(b.url, 'GET', p('/api/notes?mood=eq.happy'), admin);
    assert.deepEqual(
      filtered.body.data.map((row: { body: string }) => row.body),
      ['second'],
    );
  });

  it('settings change on B: A honours the new redirect origins at once', async () => {
    const forgot = (server: ServerProcess) =>
      call(
        server.url,
        'POST',
        p('/auth/forgot-password'),
        {},
        { email: 'nobody@example.com', redirect_url: 'https://app.example.com/reset' },
      );
    assert.equal((await forgot(a)).body.error.code, 'VALIDATION_REDIRECT_URL', 'A has the settings cached');
    assert.equal(
      (
        await call(b.url, 'PUT', p('/v1/redirect-origins'), admin, {
          allowed_redirect_origins: ['https://app.example.com'],
        })
      ).status,
      200,
    );
    assert.equal((await forgot(a)).status, 200);
  });

  it('rate limits are shared: failed logins counted on both processes', async () => {
    assert.equal(
      (await call(a.url, 'PATCH', p('/v1/settings'), admin, { rate_limits: { failed_logins_per_email: 3 } })).status,
      200,
    );
    await signUp(b, 'guess@example.com');
    const wrong = (server: ServerProcess) =>
      fetch(`${server.url}${p('/auth/login')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'guess@example.com', password: 'not the password' }),
      });
    for (const server of [a, b, a]) assert.equal((await wrong(server)).status, 401);
    const limited = await wrong(b);
    assert.equal(limited.status, 429, 'B counted the failures A saw');
    assert.equal((await limited.json()).error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await wrong(a)).status, 429);
  });

  it(`each of ${MAILS} mails queued on both processes is sent exactly once`, async () => {
    const before = smtp.received.length;
    // Signups on both processes at once: both workers wake and claim from one queue together.
    const emails = Array.from({ length: MAILS }, (_, i) => `mail${i}@example.com`);
    await Promise.all(emails.map((email, i) => signUp(i % 2 === 0 ? a : b, email)));
    await eventually(() => smtp.received.length - before >= MAILS, {
      timeoutMs: 30_000,
      everyMs: 100,
      what: `${MAILS} mails`,
    });
    // Give a duplicate, if any worker were to send one, time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const counts = new Map<string, number>();
    for (const mail of smtp.received.slice(before))
      for (const to of mail.envelopeTo) counts.set(to, (counts.get(to) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), [...emails].sort(), 'every mail arrived');
    assert.deepEqual(
      [...counts.values()].filter((n) => n !== 1),
      [],
      `no mail arrived twice: ${JSON.stringify([...counts])}`,
    );
  });
});
