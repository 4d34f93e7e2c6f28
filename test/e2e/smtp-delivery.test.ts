/**
 * Mail delivery over SMTP against a real receiver (smtp-server) started in-process: mail is
 * queued durably and sent by the worker, so a slow, dead or restarting mail server never
 * slows a request, and no mail is lost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { AppOptions } from '../../src/app/build-app.js';
import type { OutgoingMail } from '../../src/email/mail-queue.js';
import { REDACTED_BODY } from '../../src/email/mail-worker.js';
import { MAIL_QUEUE } from '../../src/store/system-tables.js';
import { sql } from '../../src/query/sql-tree.js';
import { freePort } from '../helpers/server-process.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';
import { eventually } from '../helpers/eventually.js';

/** Fast retries so that a test sees several attempts within a second. */
const FAST: AppOptions = { mailWorker: { pollIntervalMs: 100, backoffBaseMs: 100, backoffMaxMs: 300 } };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function receiver(options: Parameters<typeof startSmtpReceiver>[0] = {}): Promise<SmtpReceiver> {
  const started = await startSmtpReceiver(options);
  cleanups.push(() => started.close());
  return started;
}

async function server(
  smtpUrl: string,
  options: AppOptions & { dataDir?: string } = FAST,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const started = await startTestServer(
    { SMTP_URL: smtpUrl, EMAIL_FROM: 'Rowbase Test <noreply@rowbase.test>', ...env },
    options,
  );
  cleanups.push(() => started.close());
  return started;
}

function mail(project: TestProject, n: number, extra: Partial<OutgoingMail> = {}): OutgoingMail {
  return {
    projectId: project.id,
    to: `user${n}@example.com`,
    subject: `Message ${n}`,
    text: `Plain body ${n}`,
    html: `<p>HTML body ${n}</p>`,
    ...extra,
  };
}

/** Enqueues and returns how long the call took. */
async function timedEnqueue(target: TestServer, outgoing: OutgoingMail): Promise<number> {
  const started = performance.now();
  await target.built.services.mail.enqueue(outgoing);
  return performance.now() - started;
}

async function statuses(target: TestServer, project: TestProject): Promise<Record<string, string>> {
  const response = await target.request('GET', `/p/${project.id}/v1/emails`, { headers: project.admin });
  assert.equal(response.status, 200);
  return Object.fromEntries(response.body.data.map((item: { to: string; status: string }) => [item.to, item.status]));
}

/** Deliveries retry on their own schedule: the shared wait, with room for a retry or two. */
const queueSettles = (check: () => Promise<boolean>) =>
  eventually(check, { timeoutMs: 10_000, everyMs: 50, what: 'the mail queue' });

async function queueRow(target: TestServer, to: string) {
  return target.built.services.storage.system.first({
    kind: 'select',
    table: MAIL_QUEUE.table,
    columns: MAIL_QUEUE.columns,
    where: sql.eq('recipient', to),
  });
}

describe('mail delivery over SMTP', () => {
  it('delivers a queued mail with its subject, text and html, From the mail or EMAIL_FROM', async () => {
    const smtp = await receiver();
    const app = await server(smtp.url);
    const project = await createProject(app);
    await app.built.services.mail.enqueue(
      mail(project, 1, { subject: 'Welcome to Café Ünïcode', from: 'Café <hello@cafe.test>' }),
    );
    await app.built.services.mail.enqueue(mail(project, 2));

    const first = await smtp.waitForMail((m) => m.envelopeTo.includes('user1@example.com'));
    assert.equal(first.subject, 'Welcome to Café Ünïcode');
    assert.equal(first.text.trim(), 'Plain body 1');
    assert.equal(first.html.trim(), '<p>HTML body 1</p>');
    assert.equal(first.envelopeFrom, 'hello@cafe.test');
    assert.match(first.headers.get('to') ?? '', /user1@example\.com/);

    const second = await smtp.waitForMail((m) => m.envelopeTo.includes('user2@example.com'));
    assert.equal(second.envelopeFrom, 'noreply@rowbase.test');
    assert.match(second.headers.get('from') ?? '', /Rowbase Test/);

    await queueSettles(async () => Object.values(await statuses(app, project)).every((s) => s === 'sent'));
    assert.equal(smtp.received.length, 2, 'each mail is sent once');
  });

  it('returns from enqueue at once while the mail server is down, and delivers once it is up', async () => {
    const port = await freePort();
    const app = await server(`smtp://127.0.0.1:${port}`);
    const project = await createProject(app);
    const took = await timedEnqueue(app, mail(project, 1));
    assert.ok(took < 500, `enqueue took ${took} ms`);

    // Several attempts fail (connection refused) and are rescheduled, not dropped.
    await queueSettles(async () => Number((await queueRow(app, 'user1@example.com'))?.attempts) >= 2);
    const failing = await queueRow(app, 'user1@example.com');
    assert.equal(failing?.status, 'pending');
    assert.match(String(failing?.last_error), /ECONNECTION|ECONNREFUSED|ESOCKET/);

    const smtp = await receiver({ port });
    const delivered = await smtp.waitForMail();
    assert.equal(delivered.subject, 'Message 1');
    await queueSettles(async () => (await statuses(app, project))['user1@example.com'] === 'sent');
  });

  it('keeps enqueue and other requests fast while the mail server is slow', async () => {
    // Each answer of this mail server takes 2 s: a request that waited for it would take longer.
    const delayMs = 2_000;
    const smtp = await receiver({ delayMs });
    const app = await server(smtp.url);
    const project = await createProject(app);
    const took = await timedEnqueue(app, mail(project, 1));
    assert.ok(took < delayMs, `enqueue took ${took} ms`);
    // The worker is now inside the slow conversation; the server still answers at once.
    const healthStarted = performance.now();
    const health = await app.request('GET', '/health');
    assert.equal(health.status, 200);
    assert.ok(performance.now() - healthStarted < delayMs, 'health did not wait for the mail server');
    assert.equal(smtp.received.length, 0);
    await smtp.waitForMail();
    await queueSettles(async () => (await statuses(app, project))['user1@example.com'] === 'sent');
  });

  it('gives up on a server that never answers within the greeting timeout, and closes without waiting', async () => {
    const smtp = await receiver({ delayMs: 60_000 });
    const app = await server(smtp.url, { ...FAST, smtpTimeouts: { greetingMs: 200 } });
    const project = await createProject(app);
    await app.built.services.mail.enqueue(mail(project, 1));
    await queueSettles(async () =>
      /ETIMEDOUT|timeout/i.test(String((await queueRow(app, 'user1@example.com'))?.last_error)),
    );

    // A send is in flight (or about to be); closing the app aborts it rather than waiting.
    const closeStarted = performance.now();
    await cleanups.pop()!();
    assert.ok(performance.now() - closeStarted < 2000, 'closing did not wait for the hung server');
  });

  it('marks a mail refused for good (550) as failed after one attempt, without retrying', async () => {
    const smtp = await receiver({ rejectRecipient: (address) => address === 'user1@example.com' });
    const app = await server(smtp.url);
    const project = await createProject(app);
    await app.built.services.mail.enqueue(mail(project, 1));
    await app.built.services.mail.enqueue(mail(project, 2));
    await smtp.waitForMail((m) => m.envelopeTo.includes('user2@example.com'));
    await queueSettles(async () => (await statuses(app, project))['user1@example.com'] === 'failed');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const row = await queueRow(app, 'user1@example.com');
    assert.equal(row?.attempts, 1);
    assert.match(String(row?.last_error), /550/);
    assert.equal(smtp.received.length, 1);
  });

  it('keeps no body of a sent or failed mail: the one-time link leaves the queue and the outbox listing', async () => {
    const smtp = await receiver({ rejectRecipient: (address) => address === 'user1@example.com' });
    const app = await server(smtp.url);
    const project = await createProject(app);
    const link = (n: number) => `https://app.example/reset?token=secret-token-${n}`;
    await app.built.services.mail.enqueue(
      mail(project, 1, { text: `Reset: ${link(1)}`, html: `<a href="${link(1)}">Reset</a>` }),
    );
    await app.built.services.mail.enqueue(
      mail(project, 2, { text: `Reset: ${link(2)}`, html: `<a href="${link(2)}">Reset</a>` }),
    );
    const delivered = await smtp.waitForMail((m) => m.envelopeTo.includes('user2@example.com'));
    assert.match(delivered.text, /secret-token-2/, 'the mail itself carries the link');
    await queueSettles(async () => {
      const now = await statuses(app, project);
      return now['user1@example.com'] === 'failed' && now['user2@example.com'] === 'sent';
    });
    for (const n of [1, 2]) {
      const row = await queueRow(app, `user${n}@example.com`);
      assert.equal(row?.text_body, REDACTED_BODY);
      assert.equal(row?.html_body, REDACTED_BODY);
      assert.equal(row?.subject, `Message ${n}`, 'recipient, subject and status stay for the operator');
    }
    const listed = await app.request('GET', `/p/${project.id}/v1/emails`, { headers: project.admin });
    assert.equal(listed.status, 200);
    assert.doesNotMatch(listed.text, /secret-token/);
  });

  it('deletes sent and failed mail once past retention (their bodies carry tokens)', async () => {
    const smtp = await receiver({ rejectRecipient: (address) => address === 'user1@example.com' });
    const app = await server(smtp.url, { mailWorker: { ...FAST.mailWorker, retentionMs: 300, pruneIntervalMs: 100 } });
    const project = await createProject(app);
    await app.built.services.mail.enqueue(mail(project, 1));
    await app.built.services.mail.enqueue(mail(project, 2));
    await smtp.waitForMail((m) => m.envelopeTo.includes('user2@example.com'));
    await queueSettles(async () => Object.keys(await statuses(app, project)).length === 0);
    assert.equal(smtp.received.length, 1);
  });

  it('answers signup at once while the mail server is down; the verification mail arrives once it is up', async () => {
    const port = await freePort();
    const app = await server(`smtp://127.0.0.1:${port}`, FAST, { PUBLIC_URL: 'https://api.rowbase.test' });
    const project = await createProject(app);
    await putTable(app, project, 'users', { columns: [], auth_table: true, verify_email: true });
    const patched = await app.request('PATCH', `/p/${project.id}/v1/settings`, {
      headers: project.admin,
      body: { app_name: 'Café Demo', email_from: 'Café Demo <hello@cafe.test>' },
    });
    assert.equal(patched.status, 200);

    const started = performance.now();
    const signup = await app.request('POST', `/p/${project.id}/auth/signup`, {
      headers: project.anon,
      body: { email: 'Ada@Example.com', password: 'correct horse battery' },
    });
    const took = performance.now() - started;
    assert.equal(signup.status, 201, signup.text);
    assert.equal(signup.body.user.email_verified, false);
    // Argon2 hashing dominates; a mail server wait (seconds) would show.
    assert.ok(took < 2000, `signup took ${took} ms`);
    await queueSettles(async () => Number((await queueRow(app, 'ada@example.com'))?.attempts) >= 1);
    assert.equal((await statuses(app, project))['ada@example.com'], 'pending');

    const smtp = await receiver({ port });
    const delivered = await smtp.waitForMail();
    assert.equal(delivered.subject, 'Verify your email for Café Demo');
    assert.equal(delivered.envelopeFrom, 'hello@cafe.test');
    assert.match(delivered.text, /Café Demo/);
    assert.match(delivered.html, /Café Demo/);
    const link = /https:\/\/api\.rowbase\.test(\/p\/[^\s"<]+)/.exec(delivered.text)?.[1];
    assert.ok(link, 'the text body links to PUBLIC_URL');
    assert.ok(delivered.html.includes(link.replaceAll('&', '&amp;')), 'the html body has the same link');

    const verified = await app.request('GET', link);
    assert.equal(verified.status, 200, verified.text);
    assert.equal(verified.body.user.email_verified, true);
  });

  it('answers signup at once while the mail server accepts connections but never answers', async () => {
    const smtp = await receiver({ delayMs: 60_000 });
    // A send to this server can only end at the greeting timeout, so a signup that waited for its
    // mail would take at least that long. The bound comes from that mechanism, not from how fast
    // this machine hashes a password (which a loaded machine can slow to seconds).
    const greetingMs = 8_000;
    const app = await server(smtp.url, { ...FAST, smtpTimeouts: { greetingMs } });
    const project = await createProject(app);
    await putTable(app, project, 'users', { columns: [], auth_table: true, verify_email: true });
    const started = performance.now();
    const signup = await app.request('POST', `/p/${project.id}/auth/signup`, {
      headers: project.anon,
      body: { email: 'bob@example.com', password: 'correct horse battery' },
    });
    assert.equal(signup.status, 201, signup.text);
    const tookMs = performance.now() - started;
    assert.ok(tookMs < greetingMs, `signup answered in ${Math.round(tookMs)} ms, before a send could have ended`);
    assert.equal((await statuses(app, project))['bob@example.com'], 'pending');
  });

  it('loses no queued mail across a restart of the app', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-mail-restart-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const smtpUrl = `smtp://127.0.0.1:${port}`;

    const before = await server(smtpUrl, { ...FAST, dataDir });
    const project = await createProject(before);
    for (const n of [1, 2, 3]) await before.built.services.mail.enqueue(mail(project, n));
    await cleanups.pop()!();

    const smtp = await receiver({ port });
    const after = await server(smtpUrl, { ...FAST, dataDir });
    for (const n of [1, 2, 3]) await smtp.waitForMail((m) => m.envelopeTo.includes(`user${n}@example.com`));
    await queueSettles(
      async () => Object.values(await statuses(after, project)).filter((s) => s === 'sent').length === 3,
    );
    assert.equal(smtp.received.length, 3);
  });
});
