/**
 * The settings page edits `data_rate_limits` (contract §18), an object or null: turned on it
 * sends the whole object, a limit left empty is sent as null, "per" is a choice, and turned off
 * it sends null. Each test asserts what the server stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, signInWithAdminKey, type DashboardTab } from '../helpers/dashboard-page.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard');
const launched = skip ? undefined : launchBrowser();

describe('dashboard: data API rate limits on the settings page', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let project: TestProject;
  let tab: DashboardTab;
  let page: Page;
  before(async () => {
    server = await startTestServer();
    browser = (await launched)!;
    project = await createProject(server, 'limits');
    tab = await openDashboard(browser, server.url);
    page = tab.page;
    await signInWithAdminKey(tab, project.id, project.adminKey);
    // Signing in ends by opening the project's tables: wait for it, or that navigation can land
    // after (and undo) the settings route a test opens next (seen on a loaded machine).
    await page.getByTestId('tables').waitFor();
  });
  after(async () => {
    await tab?.close();
    await server?.close();
  });

  const stored = async () =>
    (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin })).body.data
      .data_rate_limits;
  const openSettings = async () => {
    await page.goto(`${server.url}/_/#/p/${project.id}/settings`);
    await page.reload();
    await page.getByTestId('setting-data_rate_limits').waitFor();
  };
  const save = async () => {
    await page.getByTestId('save-settings').click();
    await page.getByTestId('settings-form').getByText('Saved.').waitFor();
  };

  it('off by default; turned on with reads only, per caller → the server stores that object', async () => {
    await openSettings();
    const field = page.getByTestId('setting-data_rate_limits');
    assert.equal(await field.locator('input[name=setting-data_rate_limits-on]').isChecked(), false);
    assert.equal(await field.locator('input[type=number]').count(), 0, 'no numbers while off');
    await field.locator('input[name=setting-data_rate_limits-on]').check();
    await field.locator('input[name=setting-data_rate_limits-reads_per_minute]').fill('250');
    await field.locator('input[name=setting-data_rate_limits-writes_per_minute]').fill('');
    await field.locator('select[name=setting-data_rate_limits-per]').selectOption('caller');
    await save();
    assert.deepEqual(await stored(), { reads_per_minute: 250, writes_per_minute: null, per: 'caller' });
  });

  it('a stored value shows as it is after a reload; turned off → null', async () => {
    await openSettings();
    const field = page.getByTestId('setting-data_rate_limits');
    assert.equal(await field.locator('input[name=setting-data_rate_limits-reads_per_minute]').inputValue(), '250');
    assert.equal(await field.locator('input[name=setting-data_rate_limits-writes_per_minute]').inputValue(), '');
    assert.equal(await field.locator('select[name=setting-data_rate_limits-per]').inputValue(), 'caller');
    await field.locator('input[name=setting-data_rate_limits-on]').uncheck();
    await save();
    assert.equal(await stored(), null);
  });
});
