/**
 * Hostile strings stored where the dashboard shows them (project names, row values, column
 * defaults and enum values, rules, settings, email subjects and bodies, error messages echoing
 * a filter) are shown as text on every page: no dialog, no console error (a CSP violation is
 * one), no script run, no element injected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAuthProject, PASSWORD } from '../helpers/auth-fixtures.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, signInWithPlatformKey, type DashboardTab } from '../helpers/dashboard-page.js';
import { PLATFORM_KEY, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard');
const launched = skip ? undefined : launchBrowser();
const platform = { 'x-platform-key': PLATFORM_KEY };

const IMG = '<img src=x onerror="window.__xss=1;alert(1)">';
const SCRIPT = '<script>window.__xss=2;alert(2)</script>';
const SVG = '"><svg onload="window.__xss=3;alert(3)">';
const HOSTILE = `${IMG}${SCRIPT}${SVG}`;

/** Fails if the hostile markup became DOM, ran, or is missing as text. */
async function assertInert(page: Page, visibleText: string): Promise<void> {
  await page.getByText(visibleText, { exact: false }).first().waitFor();
  const dom = await page.evaluate(() => ({
    xss: (window as unknown as { __xss?: number }).__xss,
    imgs: document.querySelectorAll('img').length,
    scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    svgOnload: document.querySelectorAll('svg[onload]').length,
  }));
  assert.deepEqual(dom, { xss: undefined, imgs: 0, scripts: 0, svgOnload: 0 });
}

describe('dashboard: hostile strings render as text', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let tab: DashboardTab;
  let project: TestProject;
  let rowId = '';
  before(async () => {
    server = await startTestServer();
    browser = (await launched)!;
    // A project whose name is hostile, with an auth table (verify_email) and a table full of hostile values.
    project = await createAuthProject(server, {
      verifyEmail: true,
      columns: [{ name: 'nick', type: 'text', default: IMG }],
      settings: { app_name: IMG },
    });
    const named = await server.request('POST', '/v1/projects', {
      headers: platform,
      body: { name: `${IMG}${SVG}`, id: 'xss-name' },
    });
    assert.equal(named.status, 201, named.text);
    // The grid shows a referenced row's label (its first text value): a hostile name.
    await putTable(server, project, 'villains', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { list: '', view: '' },
    });
    const villain = await server.request('POST', `/p/${project.id}/api/villains`, {
      headers: platform,
      body: { name: IMG },
    });
    assert.equal(villain.status, 201, villain.text);
    await putTable(server, project, 'evil', {
      columns: [
        { name: 'body', type: 'text', default: HOSTILE, enum: [HOSTILE, 'plain'] },
        { name: 'note', type: 'text' },
        { name: 'meta', type: 'json', default: { html: SCRIPT } },
        { name: 'villain', type: 'text', references: { table: 'villains', on_delete: 'set_null' } },
      ],
      rules: { list: `note = ${JSON.stringify(HOSTILE)}`, view: '' },
    });
    const row = await server.request('POST', `/p/${project.id}/api/evil`, {
      headers: platform,
      body: { note: HOSTILE, meta: { x: IMG }, villain: villain.body.data.id },
    });
    assert.equal(row.status, 201, row.text);
    rowId = row.body.data.id;
    // Signed up from a client whose User-Agent is hostile: the sessions dialog shows it.
    const signup = await server.request('POST', `/p/${project.id}/auth/signup`, {
      headers: { 'user-agent': HOSTILE },
      body: { email: 'mallory@example.com', password: PASSWORD, nick: SVG },
    });
    assert.equal(signup.status, 201, signup.text);
    tab = await openDashboard(browser, server.url);
    await signInWithPlatformKey(tab);
  });
  after(async () => {
    await tab?.close();
    await server?.close();
  });

  it('projects list (a hostile project name)', async () => {
    await tab.page.getByTestId('projects').waitFor();
    await assertInert(tab.page, IMG);
  });

  it('tables list (hostile rules) and the schema editor (hostile defaults, enum values, rules)', async () => {
    await tab.page.goto(`${server.url}/_/#/p/${project.id}`);
    await assertInert(tab.page, 'note = "<img src=x onerror=');
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/tables/evil/schema`);
    await tab.page.getByText('Schema of evil').waitFor();
    const defaults = await tab.page
      .locator('input[name=column-default]')
      .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    assert.deepEqual(defaults, [HOSTILE, '', JSON.stringify({ html: SCRIPT }), '']);
    assert.equal(await tab.page.locator('input[name=column-enum]').first().inputValue(), `${HOSTILE}, plain`);
    await assertInert(tab.page, 'Schema of evil');
  });

  it('rows grid, the row form, and a filter error echoing hostile input', async () => {
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/tables/evil`);
    await tab.page.locator(`tr[data-row-id="${rowId}"]`).waitFor();
    await assertInert(tab.page, SCRIPT);
    assert.ok(
      (
        (await tab.page.locator(`tr[data-row-id="${rowId}"]`).getByTestId('reference-villain').textContent()) ?? ''
      ).startsWith(IMG),
      "the referenced row's hostile name, as text",
    );
    await tab.page.locator(`tr[data-row-id="${rowId}"] td`).nth(1).click();
    assert.equal(await tab.page.locator('input[name=field-note]').inputValue(), HOSTILE);
    await assertInert(tab.page, `Row ${rowId}`);
    await tab.page.keyboard.press('Escape');
    await tab.page.locator('input[name=filter]').fill(IMG);
    await tab.page.getByTestId('apply-filter').click();
    await tab.page.getByTestId('rows-error').waitFor();
    await assertInert(tab.page, 'VALIDATION_FILTER');
  });

  it('users (hostile custom column), settings (hostile app_name), outbox (hostile subject and body)', async () => {
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/users`);
    await tab.page.locator('[data-user="mallory@example.com"]').waitFor();
    await assertInert(tab.page, 'mallory@example.com');
    const sessions = await fetch(`${server.url}/p/${project.id}/v1/users/none/sessions`, { headers: platform });
    if (sessions.status !== 404 || !(await sessions.text()).includes('"NOT_FOUND"')) {
      await tab.page.locator('[data-user="mallory@example.com"]').getByRole('button', { name: 'Sessions' }).click();
      await tab.page.getByTestId('user-sessions').locator('tbody tr').first().waitFor();
      await assertInert(tab.page, SCRIPT);
      await tab.page.keyboard.press('Escape');
    }
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/tables/users`);
    await assertInert(tab.page, SVG);
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/settings`);
    assert.equal(await tab.page.locator('input[name=setting-app_name]').inputValue(), IMG);
    await assertInert(tab.page, 'Rotate a key');
    await tab.page.goto(`${server.url}/_/#/p/${project.id}/outbox`);
    const subject = tab.page.getByTestId('outbox').locator('tbody tr').first();
    await subject.waitFor();
    assert.match((await subject.textContent()) ?? '', /Verify your email for <img src=x onerror=/);
    await subject.click();
    await tab.page.getByTestId('mail').waitFor();
    await assertInert(tab.page, 'HTML source');
    tab.assertClean();
  });
});
