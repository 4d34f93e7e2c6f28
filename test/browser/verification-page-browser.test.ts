/**
 * The verification link opened in headless Chromium with JavaScript off: the page renders,
 * its stylesheet loads under the pages' CSP (no violation reported), and it reads as text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuthProject, signUp, tokenIn, waitForMail } from '../helpers/auth-fixtures.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const skip = browserSkipReason('verification page browser test');

describe('verification page in Chromium', { skip }, () => {
  const launched = skip ? undefined : launchBrowser();
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, { verifyEmail: true, settings: { app_name: 'Acme <Notes>' } });
  });
  after(() => server.close());

  it('without JavaScript: "Email verified", styled by its stylesheet, no CSP violation, names escaped', async () => {
    await signUp(server, project, 'page@example.com');
    const token = tokenIn(await waitForMail(server, project, 'page@example.com'));
    const browser = await launched!;
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      // A CSP violation is reported on the console; the browser's own /favicon.ico probe may 404.
      page.on('console', (message) => {
        if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text());
      });
      page.on('response', (answer) => {
        if (answer.status() >= 400 && !answer.url().endsWith('/favicon.ico'))
          problems.push(`${answer.status()} ${answer.url()}`);
      });
      page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
      const css = page.waitForResponse((response) => response.url().endsWith('/_pages/verify.css'));
      const response = await page.goto(`${server.url}/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`);
      assert.equal(response?.status(), 200);
      assert.equal((await css).status(), 200);
      assert.equal(await page.title(), 'Email verified · Acme <Notes>');
      assert.equal((await page.textContent('h1'))?.trim(), 'Email verified');
      assert.match((await page.textContent('main')) ?? '', /page@example\.com is verified for Acme <Notes>\./);
      // Computed styles are readable without page scripts: the stylesheet was applied.
      const markBackground = await page.$eval('.mark', (element) => getComputedStyle(element).backgroundColor);
      assert.notEqual(markBackground, 'rgba(0, 0, 0, 0)', 'the stylesheet is applied');
      const width = await page.$eval('main', (element) => getComputedStyle(element).maxWidth);
      assert.notEqual(width, 'none');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
