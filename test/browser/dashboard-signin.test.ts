/**
 * The dashboard in a real browser (contract §12): served at /_/ with the page security
 * headers on every answer, sign-in with each key kind, a wrong key's message and suggestion,
 * keys in sessionStorage only (never in a URL), sign-out forgetting them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, screenshot, signInWithAdminKey, signInWithPlatformKey } from '../helpers/dashboard-page.js';
import { createProject, PLATFORM_KEY, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard');
// Launched at file level, so the helper closes it when the file's tests end.
const launched = skip ? undefined : launchBrowser();

describe('dashboard: serving, sign-in, sign-out', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    browser = (await launched)!;
    project = await createProject(server);
  });
  after(() => server?.close());

  it('every answer under /_/ (page, assets, a missing asset) carries the CSP, nosniff and no-referrer; the page has no inline script', async () => {
    const page = await fetch(`${server.url}/_/`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const assets = [...html.matchAll(/(?:src|href)="(\/_\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `assets: ${assets.join(', ')}`);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline <script> block');
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'an inline event handler');
    for (const path of ['/_/', '/_', ...assets, '/_/assets/missing.js']) {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /(^|;\s*)default-src 'self'(;|$)/, `${path}: ${csp}`);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
    }
    assert.equal((await fetch(`${server.url}/_/assets/missing.js`)).status, 404);
  });

  it('first load (page and every asset it names) is under the 300 KB budget, even uncompressed', async () => {
    const html = await (await fetch(`${server.url}/_/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/_\/[^"]+)"/g)].map((m) => m[1]!);
    let bytes = Buffer.byteLength(html);
    for (const asset of assets) bytes += (await (await fetch(`${server.url}${asset}`)).arrayBuffer()).byteLength;
    console.log(`# dashboard first load: ${bytes} bytes uncompressed (${assets.length} assets)`);
    assert.ok(bytes < 300 * 1024, `${bytes} bytes`);
  });

  it('the platform key signs in to every project; the key stays in sessionStorage and out of every URL; sign-out forgets it', async () => {
    const tab = await openDashboard(browser, server.url);
    await signInWithPlatformKey(tab);
    await tab.page.getByTestId('projects').getByText(project.id).waitFor();
    assert.equal(await tab.page.getByTestId('signed-in-as').textContent(), 'Signed in with the platform key');
    const stored = await tab.page.evaluate(() => ({ session: JSON.stringify({ ...sessionStorage }), local: JSON.stringify({ ...localStorage }), cookie: document.cookie }));
    assert.ok(stored.session.includes(PLATFORM_KEY), 'the key is in sessionStorage');
    assert.ok(!stored.local.includes(PLATFORM_KEY) && stored.cookie === '', 'the key is nowhere else');
    // Open a project with the platform key: its tables load.
    await tab.page.getByRole('link', { name: project.id }).click();
    await tab.page.getByTestId('tables').waitFor();
    await tab.page.getByTestId('sign-out').click();
    await tab.page.getByTestId('signin-form').waitFor();
    assert.equal(await tab.page.evaluate(() => sessionStorage.length), 0);
    await tab.page.reload();
    await tab.page.getByTestId('signin-form').waitFor();
    tab.assertClean();
    await tab.close();
  });

  it('a project id and its admin key sign in to that project only', async () => {
    const tab = await openDashboard(browser, server.url);
    await signInWithAdminKey(tab, project.id, project.adminKey);
    await tab.page.getByTestId('tables').waitFor();
    assert.equal(await tab.page.getByTestId('signed-in-as').textContent(), `Signed in to ${project.id}`);
    assert.equal(await tab.page.getByTestId('nav-projects').count(), 0, 'no project list for a project key');
    await tab.page.getByTestId('sign-out').click();
    await tab.page.getByTestId('signin-form').waitFor();
    tab.assertClean([project.adminKey]);
    await tab.close();
  });

  it('signed in with an admin key, rotating that key keeps the tab working with the new one; the old one is refused', async () => {
    const own = await createProject(server);
    const tab = await openDashboard(browser, server.url);
    await signInWithAdminKey(tab, own.id, own.adminKey);
    await tab.page.getByTestId('nav-settings').click();
    await tab.page.locator('select[name=rotate-which]').selectOption('sk');
    await tab.page.locator('select[name=rotate-grace]').selectOption('0');
    await tab.page.getByTestId('rotate-keys-submit').click();
    await tab.page.getByTestId('confirm-rotate').click();
    const fresh = await tab.page.getByTestId('new-admin-key').inputValue();
    assert.equal((await server.request('GET', `/p/${own.id}/v1/tables`, { headers: own.admin })).status, 401);
    assert.ok((await tab.page.evaluate(() => JSON.stringify({ ...sessionStorage }))).includes(fresh), 'the tab keeps the new key');
    await tab.page.getByTestId('nav-tables').click();
    // The table list loads with the new key (with the old one it would show AUTH_INVALID_KEY).
    await tab.page.getByTestId('tables').getByText('No tables yet').waitFor();
    assert.equal(await tab.page.getByRole('alert').count(), 0, 'no error after the rotation');
    tab.assertClean([own.adminKey, fresh]);
    await tab.close();
  });

  it("a wrong key shows the server's message and suggestion, and nothing is stored", async () => {
    const tab = await openDashboard(browser, server.url);
    await signInWithPlatformKey(tab, 'rb_wrong');
    const error = tab.page.getByTestId('signin-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /AUTH_INVALID_KEY/);
    assert.match((await error.locator('.error-message').textContent()) ?? '', /platform key is wrong/i);
    assert.ok(((await error.locator('.error-suggestion').textContent()) ?? '').length > 10);
    await screenshot(tab.page, 'sign-in-error');
    await signInWithAdminKey(tab, project.id, 'sk_wrong');
    await tab.page.getByTestId('signin-error').getByText('AUTH_INVALID_KEY').waitFor();
    assert.equal(await tab.page.evaluate(() => sessionStorage.length), 0);
    tab.assertClean([project.adminKey]);
    await tab.close();
  });
});
