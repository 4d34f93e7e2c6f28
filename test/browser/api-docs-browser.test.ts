/**
 * The API reference page (GET /p/{id}/docs) in headless Chromium: it asks for a key in the
 * page, loads the document with it in a header (never in a URL), and Swagger UI lists the
 * project's table paths, with no CSP violation. A wrong key shows the error envelope as text.
 * The publishable key opens it too, showing only what an anonymous client may call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { applySchema, NO_AUTH_SCHEMA } from '../helpers/openapi-fixtures.js';
import { putTable } from '../helpers/test-server.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const skip = browserSkipReason('API reference page browser test');

describe('API reference page in Chromium', { skip }, () => {
  const launched = skip ? undefined : launchBrowser();
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await applySchema(server, project, NO_AUTH_SCHEMA);
    // Locked for non-admins (every rule null): only the admin key's reference shows it.
    await putTable(server, project, 'secrets', { columns: [{ name: 'launch_code', type: 'text' }] });
  });
  after(() => server.close());

  it('the typed key loads the document, the table paths are listed; no CSP violation, no key in a URL', async () => {
    const browser = await launched!;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      const urls: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text());
      });
      page.on('request', (request) => urls.push(request.url()));
      const response = await page.goto(`${server.url}/p/${project.id}/docs`);
      assert.equal(response?.status(), 200);

      await page.fill('#rb-key', 'sk_not_the_key');
      await page.click('button[type=submit]');
      await page.waitForFunction(() =>
        /AUTH_INVALID_KEY/.test(document.getElementById('rb-key-status')?.textContent ?? ''),
      );

      await page.fill('#rb-key', project.adminKey);
      await page.click('button[type=submit]');
      await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const paths = await page.$$eval('.opblock-summary-path', (elements) =>
        elements.map((e) => e.textContent?.replace(/\u200b/g, '').trim()),
      );
      for (const path of ['/api/notes', '/api/notes/{row_id}', '/api/notes/bulk', '/api/secrets'])
        assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
      assert.match((await page.textContent('#rb-audience')) ?? '', /whole API/);
      assert.equal(await page.textContent('#rb-key-status'), '');
      // Problems other than the failed-key request (401 logged by Chromium) are CSP or script errors.
      assert.deepEqual(
        problems.filter((p) => !/status of 401/.test(p)),
        [],
      );
      assert.ok(
        urls.every((url) => !url.includes(project.adminKey) && !url.includes('sk_not_the_key')),
        urls.join('\n'),
      );
    } finally {
      await context.close();
    }
  });

  it('the pk_ key opens it too: only what an anonymous client may call, said so; key in a header', async () => {
    const browser = await launched!;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      const documentRequests: Record<string, string>[] = [];
      const urls: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('request', (request) => {
        urls.push(request.url());
        if (request.url().endsWith('/v1/openapi.json')) documentRequests.push(request.headers());
      });
      assert.equal((await page.goto(`${server.url}/p/${project.id}/docs`))?.status(), 200);
      assert.match((await page.textContent('label[for=rb-key]')) ?? '', /Publishable/);
      assert.match((await page.textContent('.rb-key')) ?? '', /anonymous client/);

      await page.fill('#rb-key', project.publishableKey);
      await page.click('button[type=submit]');
      await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const operations = await page.$$eval('.opblock-summary', (elements) =>
        elements.map(
          (e) =>
            `${e.querySelector('.opblock-summary-method')?.textContent?.trim()} ${e
              .querySelector('.opblock-summary-path')
              ?.textContent?.replace(/\u200b/g, '')
              .trim()}`,
        ),
      );
      // notes: list and view are "" (anyone), create/update/delete null (admin only); secrets: every rule null.
      assert.ok(
        operations.includes('GET /api/notes') && operations.includes('GET /api/notes/{row_id}'),
        operations.join(', '),
      );
      for (const hidden of [
        'POST /api/notes',
        'POST /api/notes/bulk',
        'PATCH /api/notes/{row_id}',
        'DELETE /api/notes/{row_id}',
        'GET /api/secrets',
      ]) {
        assert.ok(!operations.includes(hidden), `${hidden} is not shown to the pk_ key: ${operations.join(', ')}`);
      }
      assert.match((await page.textContent('#rb-audience')) ?? '', /publishable key/);
      assert.equal(await page.textContent('#rb-key-status'), '');
      assert.equal(documentRequests.length, 1);
      assert.equal(documentRequests[0]!['x-api-key'], project.publishableKey, 'sent in X-Api-Key');
      assert.equal(documentRequests[0]!['x-admin-key'], undefined);
      assert.ok(
        urls.every((url) => !url.includes(project.publishableKey)),
        urls.join('\n'),
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
