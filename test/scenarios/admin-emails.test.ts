/**
 * GET /p/{id}/v1/emails: the project's outbox (no SMTP_URL), admin key only, newest first,
 * paged in the list envelope. Also what enqueue logs: one line naming the recipient and the
 * project, never the body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StoredMailQueue, type MailLog } from '../../src/email/mail-queue.js';
import {
  createProject,
  PLATFORM_KEY,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

describe('GET /p/{id}/v1/emails', () => {
  let server: TestServer;
  let project: TestProject;
  let other: TestProject;
  const clock = new TestClock(Date.parse('2030-01-01T00:00:00.000Z'));

  before(async () => {
    server = await startTestServer({}, { clock });
    project = await createProject(server);
    other = await createProject(server);
    for (const n of [1, 2, 3, 4, 5]) {
      await server.built.services.mail.enqueue({
        projectId: project.id,
        to: `user${n}@example.com`,
        subject: `Subject ${n}`,
        text: `Text ${n} https://app.test/reset?token=secret${n}`,
        html: `<p>Html ${n}</p>`,
      });
      clock.advance(1);
    }
    await server.built.services.mail.enqueue({
      projectId: other.id,
      to: 'someone@other.test',
      subject: 'Other',
      text: 'o',
      html: '<p>o</p>',
    });
  });
  after(() => server.close());

  const path = () => `/p/${project.id}/v1/emails`;

  const refusals: { name: string; headers: () => Record<string, string>; status: number; code: string }[] = [
    { name: 'no key → 401 AUTH_REQUIRED', headers: () => ({}), status: 401, code: 'AUTH_REQUIRED' },
    {
      name: 'pk_ key in X-Admin-Key → 401 AUTH_INVALID_KEY',
      headers: () => ({ 'x-admin-key': project.publishableKey }),
      status: 401,
      code: 'AUTH_INVALID_KEY',
    },
    {
      name: 'pk_ key in X-Api-Key (anonymous client) → 401 AUTH_REQUIRED',
      headers: () => project.anon,
      status: 401,
      code: 'AUTH_REQUIRED',
    },
    {
      name: "another project's admin key → 401 AUTH_INVALID_KEY",
      headers: () => other.admin,
      status: 401,
      code: 'AUTH_INVALID_KEY',
    },
    {
      name: 'a made-up sk_ key → 401 AUTH_INVALID_KEY',
      headers: () => ({ 'x-admin-key': `sk_${'x'.repeat(40)}` }),
      status: 401,
      code: 'AUTH_INVALID_KEY',
    },
    {
      name: 'a bearer token instead of the admin key → 401 AUTH_REQUIRED',
      headers: () => ({ authorization: 'Bearer abc.def.ghi' }),
      status: 401,
      code: 'AUTH_REQUIRED',
    },
  ];
  for (const scenario of refusals) {
    it(scenario.name, async () => {
      const response = await server.request('GET', path(), { headers: scenario.headers() });
      assert.equal(response.status, scenario.status);
      assert.equal(response.body.error.code, scenario.code);
      assert.ok(response.body.error.suggestion.length > 0);
    });
  }

  it('unknown project → 404 PROJECT_NOT_FOUND', async () => {
    const response = await server.request('GET', '/p/no-such-project/v1/emails', { headers: project.admin });
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'PROJECT_NOT_FOUND');
  });

  it("lists the project's mails newest first, each { id, to, subject, text, html, created_at, status }", async () => {
    const response = await server.request('GET', path(), { headers: project.admin });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.meta, { total: 5, limit: 50, offset: 0 });
    const items = response.body.data;
    assert.deepEqual(
      items.map((m: { to: string }) => m.to),
      [5, 4, 3, 2, 1].map((n) => `user${n}@example.com`),
    );
    assert.deepEqual(Object.keys(items[0]).sort(), ['created_at', 'html', 'id', 'status', 'subject', 'text', 'to']);
    assert.equal(items[0].subject, 'Subject 5');
    assert.equal(items[0].text, 'Text 5 https://app.test/reset?token=secret5');
    assert.equal(items[0].html, '<p>Html 5</p>');
    assert.equal(items[0].status, 'outbox');
    assert.equal(items[0].created_at, '2030-01-01T00:00:04.000Z');
    assert.ok(
      items.every((m: { to: string }) => m.to !== 'someone@other.test'),
      "another project's mail never shows",
    );
  });

  const pages: { name: string; query: string; meta: object; recipients: number[] }[] = [
    {
      name: 'limit=2 → the two newest',
      query: '?limit=2',
      meta: { total: 5, limit: 2, offset: 0 },
      recipients: [5, 4],
    },
    {
      name: 'limit=2&offset=2 → the next two',
      query: '?limit=2&offset=2',
      meta: { total: 5, limit: 2, offset: 2 },
      recipients: [3, 2],
    },
    {
      name: 'offset past the end → empty page, exact total',
      query: '?offset=10',
      meta: { total: 5, limit: 50, offset: 10 },
      recipients: [],
    },
    {
      name: 'limit above 1000 is clamped to 1000',
      query: '?limit=5000',
      meta: { total: 5, limit: 1000, offset: 0 },
      recipients: [5, 4, 3, 2, 1],
    },
  ];
  for (const page of pages) {
    it(page.name, async () => {
      const response = await server.request('GET', `${path()}${page.query}`, { headers: project.admin });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.meta, page.meta);
      assert.deepEqual(
        response.body.data.map((m: { to: string }) => m.to),
        page.recipients.map((n) => `user${n}@example.com`),
      );
    });
  }

  it('limit=abc → 400 VALIDATION_FILTER', async () => {
    const response = await server.request('GET', `${path()}?limit=abc`, { headers: project.admin });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'VALIDATION_FILTER');
  });

  it("the other project's admin sees only its own mail", async () => {
    const response = await server.request('GET', `/p/${other.id}/v1/emails`, { headers: other.admin });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.data.map((m: { to: string }) => m.to),
      ['someone@other.test'],
    );
  });

  it('deleting a project deletes its outbox', async () => {
    const doomed = await createProject(server);
    await server.built.services.mail.enqueue({
      projectId: doomed.id,
      to: 'gone@example.com',
      subject: 's',
      text: 't',
      html: 'h',
    });
    const deleted = await server.request('DELETE', `/v1/projects/${doomed.id}`, {
      headers: { 'x-platform-key': PLATFORM_KEY },
    });
    assert.equal(deleted.status, 204);
    const remaining = await server.built.services.mail.list(doomed.id, 50, 0);
    assert.equal(remaining.total, 0);
  });

  it('enqueue logs one line naming recipient and project, never the body', async () => {
    const lines: { fields: object; message: string }[] = [];
    const capture = (fields: object, message: string) => lines.push({ fields, message });
    const log: MailLog = { info: capture, warn: capture, error: capture };
    const queue = new StoredMailQueue(server.built.services.storage.system, {
      delivery: 'outbox',
      defaultFrom: 'x@y.test',
      clock,
      log,
    });
    await queue.enqueue({
      projectId: project.id,
      to: 'logged@example.com',
      subject: 'Reset',
      text: 'token=TOPSECRET',
      html: '<a href="?token=TOPSECRET">x</a>',
    });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.message, `mail to logged@example.com queued in the outbox of project ${project.id}`);
    assert.doesNotMatch(JSON.stringify(lines), /TOPSECRET|Reset/);
  });

  it('enqueue refuses header values with line breaks (a caller bug, not input)', async () => {
    await assert.rejects(
      server.built.services.mail.enqueue({
        projectId: project.id,
        to: 'a@example.com\r\nBcc: evil@example.com',
        subject: 's',
        text: 't',
        html: 'h',
      }),
      /line breaks/,
    );
    await assert.rejects(
      server.built.services.mail.enqueue({
        projectId: project.id,
        to: 'a@example.com',
        subject: 'x\nBcc: e@x',
        text: 't',
        html: 'h',
      }),
      /line breaks/,
    );
  });
});
