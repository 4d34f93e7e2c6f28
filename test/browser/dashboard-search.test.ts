/**
 * Full-text search in the dashboard (issue 25): the table editor declares search columns (and
 * keeps them when the table is saved for another change), and the rows page of such a table has
 * a search box whose query the server answers most relevant first; a refused query shows the
 * server's error inline. Tables without search columns have no search box.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, signInWithPlatformKey, type DashboardTab } from '../helpers/dashboard-page.js';
import {
  createProject,
  PLATFORM_KEY,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard');
const launched = skip ? undefined : launchBrowser();
const platform = { 'x-platform-key': PLATFORM_KEY };

describe('dashboard: full-text search', { skip }, () => {
  let server: TestServer;
  let project: TestProject;
  let browser: Browser;
  let tab: DashboardTab;
  let page: Page;
  const tableNow = async (name: string) =>
    (await server.request('GET', `/p/${project.id}/v1/tables/${name}`, { headers: platform })).body.data;
  const shownTitles = () =>
    page
      .getByTestId('rows')
      .locator('tbody tr[data-row-id]')
      .evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'searchy');
    browser = (await launched)!;
    const columns = [
      { name: 'title', type: 'text' },
      { name: 'body', type: 'text' },
    ];
    for (const name of ['notes', 'plain']) {
      const created = await server.request('PUT', `/p/${project.id}/v1/tables/${name}`, {
        headers: project.admin,
        body: { columns },
      });
      assert.equal(created.status, 201, created.text);
    }
    const rows = [
      { title: 'Green tea', body: 'green leaves, green cup' },
      { title: 'Black tea', body: 'no green at all? a little green' },
      { title: 'Café crème', body: 'coffee' },
    ];
    const bulk = await server.request('POST', `/p/${project.id}/api/notes/bulk`, {
      headers: project.admin,
      body: rows,
    });
    assert.equal(bulk.status, 201, bulk.text);
    tab = await openDashboard(browser, server.url);
    page = tab.page;
    await signInWithPlatformKey(tab);
    await page.getByTestId('projects').waitFor();
  });
  after(async () => {
    await tab?.close();
    await server?.close();
  });

  it('the table editor declares search columns, and keeps them on a later save', async () => {
    await page.goto(`${server.url}/_/#/p/${project.id}/tables/notes/schema`);
    await page.getByText('Schema of notes').waitFor();
    await page.locator('input[name=search]').fill('title, body');
    await page.getByTestId('save-table').click();
    await page.getByTestId('saved').waitFor();
    assert.deepEqual((await tableNow('notes')).search, ['title', 'body']);
    // Another change saved from a fresh editor keeps the search columns.
    await page.reload();
    await page.getByText('Schema of notes').waitFor();
    assert.equal(await page.locator('input[name=search]').inputValue(), 'title, body');
    await page.locator('input[name=rule-list-locked]').uncheck();
    await page.getByTestId('save-table').click();
    await page.getByTestId('saved').waitFor();
    const saved = await tableNow('notes');
    assert.equal(saved.rules.list, '');
    assert.deepEqual(saved.search, ['title', 'body']);
  });

  it('the rows page searches, most relevant first, and shows a refused query inline', async () => {
    await page.goto(`${server.url}/_/#/p/${project.id}/tables/notes`);
    await page.getByTestId('rows').locator('tbody tr[data-row-id]').nth(2).waitFor();
    await page.locator('input[name=search]').fill('green -coffee');
    await page.getByTestId('apply-search').click();
    await page.getByText('2 rows match the search').waitFor();
    const titles = await shownTitles();
    assert.equal(titles.length, 2);
    assert.match(titles[0]!, /Green tea/, `most relevant first: ${titles}`);
    await page.locator('input[name=search]').fill('CAFE');
    await page.getByTestId('apply-search').click();
    await page.getByText('1 row match the search').waitFor();
    assert.match((await shownTitles())[0]!, /Café crème/);
    await page.locator('input[name=search]').fill('!!!');
    await page.getByTestId('apply-search').click();
    await page.getByTestId('rows-error').getByText('VALIDATION_FILTER').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByTestId('rows').locator('tbody tr[data-row-id]').nth(2).waitFor();
    tab.assertClean();
  });

  it('a table without search columns has no search box', async () => {
    await page.goto(`${server.url}/_/#/p/${project.id}/tables/plain`);
    await page.getByTestId('apply-filter').waitFor();
    assert.equal(await page.locator('input[name=search]').count(), 0);
  });
});
