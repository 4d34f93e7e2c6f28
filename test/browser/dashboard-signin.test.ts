/**
 * The dashboard in a real browser (contract §12): served at /_/ with the page security
 * headers on every answer, sign-in with each key kind, a wrong key's message and suggestion,
 * the key exchanged for a dashboard token that is the only thing the page keeps (in
 * sessionStorage, never in a URL) and sends, sign-out revoking it, an expired token returning
 * to sign-in with a message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { assertError } from '../helpers/assert-error.js';
import {
  openDashboard,
  screenshot,
  signInWithAdminKey,
  signInWithPlatformKey,
  type DashboardTab,
} from '../helpers/dashboard-page.js';
import {
  createProject,
  PLATFORM_KEY,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const SESSION_ENTRY = 'rowbase.dashboard.session';

/** The token the tab keeps (its sessionStorage entry). */
async function storedToken(tab: DashboardTab): Promise<string> {
  return tab.page.evaluate((entry) => JSON.parse(sessionStorage.getItem(entry) ?? '{}').token as string, SESSION_ENTRY);
}

/**
 * Asserts that no key is held anywhere the page can keep something: sessionStorage,
 * localStorage, cookies, IndexedDB, the Cache API, and the DOM (markup and input values).
 */
async function assertNoKeyHeld(tab: DashboardTab, keys: string[]): Promise<void> {
  const held = await tab.page.evaluate(async () => ({
    session: JSON.stringify({ ...sessionStorage }),
    local: JSON.stringify({ ...localStorage }),
    cookie: document.cookie,
    indexedDb: JSON.stringify(await indexedDB.databases()),
    caches: JSON.stringify(await caches.keys()),
    dom: document.documentElement.outerHTML,
    inputs: JSON.stringify(
      [...document.querySelectorAll('input, textarea')].map((field) => (field as HTMLInputElement).value),
    ),
  }));
  assert.deepEqual(await tab.page.context().cookies(), [], 'no cookie');
  for (const [place, text] of Object.entries(held)) {
    for (const key of keys) assert.ok(!text.includes(key), `a key is in ${place}`);
    assert.doesNotMatch(text, /\b(?:rb|sk)_[0-9A-Za-z_]{20,}/, `something like a key is in ${place}`);
  }
}

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

  it('every answer under /_/ (page, assets, missing asset): CSP, nosniff, no-referrer; no inline script', async () => {
    const page = await fetch(`${server.url}/_/`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const assets = [...html.matchAll(/(?:src|href)="(\/_\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(
      assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')),
      `assets: ${assets.join(', ')}`,
    );
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

  it('platform key: every project; the page keeps only a dashboard token; sign-out revokes it', async () => {
    const tab = await openDashboard(browser, server.url);
    const calls: { path: string; method: string; key?: string; token?: string }[] = [];
    tab.page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/_/')) return;
      const headers = request.headers();
      calls.push({
        path: pathname,
        method: request.method(),
        key: headers['x-platform-key'] ?? headers['x-admin-key'],
        token: headers['x-dashboard-token'],
      });
    });
    await signInWithPlatformKey(tab);
    await tab.page.getByTestId('projects').getByText(project.id).waitFor();
    assert.equal(await tab.page.getByTestId('signed-in-as').textContent(), 'Signed in with the platform key');
    const token = await storedToken(tab);
    assert.match(token, /^rbd_/, 'the tab keeps a dashboard token');
    await assertNoKeyHeld(tab, [PLATFORM_KEY]);
    // Open a project: its tables load with the token.
    await tab.page.getByRole('link', { name: project.id }).click();
    await tab.page.getByTestId('tables').waitFor();
    await assertNoKeyHeld(tab, [PLATFORM_KEY]);
    const [exchange, ...rest] = calls;
    assert.deepEqual(
      exchange,
      { path: '/v1/dashboard/sessions', method: 'POST', key: PLATFORM_KEY, token: undefined },
      'the key travels once, to be exchanged',
    );
    assert.ok(
      rest.length > 0 && rest.every((call) => call.key === undefined && call.token === token),
      `every later call carries the token only: ${JSON.stringify(rest)}`,
    );
    // Another script's entry in sessionStorage is not the dashboard's to remove.
    await tab.page.evaluate(() => sessionStorage.setItem('another-app', 'kept'));
    await tab.page.getByTestId('sign-out').click();
    await tab.page.getByTestId('signin-form').waitFor();
    assert.deepEqual(await tab.page.evaluate(() => ({ ...sessionStorage })), { 'another-app': 'kept' });
    assertError(
      await server.request('GET', '/v1/projects', { headers: { 'x-dashboard-token': token } }),
      401,
      'AUTH_INVALID_TOKEN',
    );
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
    await assertNoKeyHeld(tab, [project.adminKey]);
    const token = await storedToken(tab);
    assert.equal(
      (await server.request('GET', `/p/${project.id}/v1/tables`, { headers: { 'x-dashboard-token': token } })).status,
      200,
    );
    await tab.page.getByTestId('sign-out').click();
    await tab.page.getByTestId('signin-form').waitFor();
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: { 'x-dashboard-token': token } }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    tab.assertClean([project.adminKey]);
    await tab.close();
  });

  it('rotating the signed-in admin key signs the tab in with the new one; old key and token refused', async () => {
    const own = await createProject(server);
    const tab = await openDashboard(browser, server.url);
    await signInWithAdminKey(tab, own.id, own.adminKey);
    await tab.page.getByTestId('nav-settings').click();
    const oldToken = await storedToken(tab);
    await tab.page.locator('select[name=rotate-which]').selectOption('sk');
    await tab.page.locator('select[name=rotate-grace]').selectOption('0');
    await tab.page.getByTestId('rotate-keys-submit').click();
    await tab.page.getByTestId('confirm-rotate').click();
    const fresh = await tab.page.getByTestId('new-admin-key').inputValue();
    assert.equal((await server.request('GET', `/p/${own.id}/v1/tables`, { headers: own.admin })).status, 401);
    assertError(
      await server.request('GET', `/p/${own.id}/v1/tables`, { headers: { 'x-dashboard-token': oldToken } }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    const newToken = await storedToken(tab);
    assert.ok(newToken.startsWith('rbd_') && newToken !== oldToken, 'the tab holds a token made from the new key');
    assert.ok(
      !(await tab.page.evaluate(() => JSON.stringify({ ...sessionStorage }))).includes(fresh),
      'not the new key itself',
    );
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

  it('a token the server no longer accepts (12 hours passed) returns the tab to sign-in, saying why', async () => {
    const clock = new TestClock();
    const timed = await startTestServer({}, { clock });
    try {
      const tab = await openDashboard(browser, timed.url);
      await signInWithPlatformKey(tab);
      await tab.page.getByTestId('projects').waitFor();
      clock.advance(12 * 60 * 60);
      await tab.page.reload();
      const notice = tab.page.getByTestId('session-ended');
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /ended.*sign in again/i);
      await screenshot(tab.page, 'session-ended');
      await tab.page.getByTestId('signin-form').waitFor();
      assert.equal(
        await tab.page.evaluate((entry) => sessionStorage.getItem(entry), SESSION_ENTRY),
        null,
        'the ended token is forgotten',
      );
      tab.assertClean();
      await tab.close();
    } finally {
      await timed.close();
    }
  });
});
