/**
 * The mail request worker over the real system database of each engine: several workers
 * (as several processes on PostgreSQL would run) resolve every stored request exactly once;
 * a failed resolution is retried; a resolution that outlives its lease cannot produce a second
 * mail; requests never show in the outbox listing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAIL_STATUS, silentMailLog, StoredMailQueue } from '../../src/email/mail-queue.js';
import { MailRequestWorker, type MailRequest, type ResolvedMail } from '../../src/email/mail-request-worker.js';
import { systemClock } from '../../src/lib/clock.js';
import { MAIL_QUEUE } from '../../src/store/system-tables.js';
import { sql } from '../../src/query/sql-tree.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let queue: StoredMailQueue;
before(async () => {
  server = await startTestServer();
  // The server's own worker would resolve our test requests with the real resolver: stop it.
  await server.built.services.mailRequests.stop();
  project = await createProject(server);
  queue = new StoredMailQueue(server.built.services.storage.system, {
    delivery: 'outbox',
    defaultFrom: 'x@y.test',
    clock: systemClock,
    log: silentMailLog,
  });
});
after(() => server.close());

const db = () => server.built.services.storage.system;
const requestsLeft = async () =>
  db().count({
    kind: 'count',
    table: MAIL_QUEUE.table,
    where: sql.and(sql.eq('project_id', project.id), sql.eq('status', MAIL_STATUS.request)),
  });
const mailOf = (request: MailRequest): ResolvedMail => ({
  to: request.email,
  subject: `for ${request.email}`,
  text: String(request.payload.n),
  html: '<p>x</p>',
});
const worker = (
  resolve: (request: MailRequest) => Promise<ResolvedMail | undefined>,
  options: Record<string, number> = {},
) =>
  new MailRequestWorker(db(), resolve, silentMailLog, {
    delivery: 'outbox',
    batchSize: 5,
    backoffBaseMs: 0,
    ...options,
  });
const outboxTo = async (prefix: string) =>
  (await queue.list(project.id, 1000, 0)).items.filter((mail) => mail.to.startsWith(prefix));

describe('mail request worker', () => {
  it('three workers at once resolve each of 60 requests once; even ones become mails, odd ones nothing', async () => {
    for (let n = 0; n < 60; n++)
      await queue.enqueueRequest({
        projectId: project.id,
        kind: 'test',
        email: `many${n}@example.com`,
        payload: { n },
      });
    assert.equal((await outboxTo('many')).length, 0, 'requests are not listed as mail');
    const calls = new Map<string, number>();
    const resolve = async (request: MailRequest) => {
      calls.set(request.email, (calls.get(request.email) ?? 0) + 1);
      await new Promise((done) => setTimeout(done, 1));
      return Number(request.payload.n) % 2 === 0 ? mailOf(request) : undefined;
    };
    const workers = [worker(resolve), worker(resolve), worker(resolve)];
    await Promise.all(
      workers.map(async (w) => {
        while ((await w.runOnce()) > 0);
      }),
    );
    assert.equal(calls.size, 60);
    assert.deepEqual(
      [...calls.values()].filter((count) => count !== 1),
      [],
      'no request resolved twice',
    );
    const mails = await outboxTo('many');
    assert.deepEqual(
      mails.map((mail) => mail.to).sort(),
      Array.from({ length: 30 }, (_, i) => `many${i * 2}@example.com`).sort(),
    );
    assert.ok(mails.every((mail) => mail.status === MAIL_STATUS.outbox && mail.subject === `for ${mail.to}`));
    assert.equal(await requestsLeft(), 0);
  });

  it('a resolution that throws is retried, then resolved', async () => {
    await queue.enqueueRequest({ projectId: project.id, kind: 'test', email: 'flaky@example.com', payload: { n: 1 } });
    let attempts = 0;
    const w = worker(async (request) => {
      attempts += 1;
      if (attempts === 1) throw new Error('storage hiccup');
      return mailOf(request);
    });
    assert.equal(await w.runOnce(), 1);
    assert.equal(await requestsLeft(), 1, 'still a request after the failure');
    assert.equal(await w.runOnce(), 1);
    assert.equal(attempts, 2);
    assert.equal((await outboxTo('flaky')).length, 1);
    assert.equal(await requestsLeft(), 0);
  });

  it('a resolution outliving its lease: another worker resolves the request; the late one does nothing', async () => {
    await queue.enqueueRequest({ projectId: project.id, kind: 'test', email: 'slow@example.com', payload: { n: 0 } });
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const slow = worker(
      async (request) => {
        await held;
        return { ...mailOf(request), subject: 'late' };
      },
      { leaseMs: 50 },
    );
    const slowRun = slow.runOnce();
    await new Promise((done) => setTimeout(done, 150));
    const fast = worker(async (request) => ({ ...mailOf(request), subject: 'first' }));
    assert.equal(await fast.runOnce(), 1, 'the expired lease lets another worker claim it');
    release();
    assert.equal(await slowRun, 1);
    const mails = await outboxTo('slow');
    assert.deepEqual(
      mails.map((mail) => mail.subject),
      ['first'],
      'one mail, from the first resolution to finish',
    );
  });
});
