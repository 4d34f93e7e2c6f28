/**
 * The schema editor never replaces a table by surprise (issue 21, defect 1), in a real
 * browser: "New table" with the name of an existing table is refused and the table keeps its
 * rules and columns; of two editors opened on one table, the second save is refused with a
 * "changed by someone else" message and a reload; creating a table lands on its rows; the
 * destructive-change warning is in view when it appears.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, screenshot, signInWithPlatformKey, type DashboardTab } from '../helpers/dashboard-page.js';
import {
  createProject,
  PLATFORM_KEY,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard table versions');
const launched = skip ? undefined : launchBrowser();
const platform = { 'x-platform-key': PLATFORM_KEY };

// The README quickstart's table.
const QUICKSTART = {
  columns: [
    { name: 'title', type: 'text', required: true, max_length: 200 },
    { name: 'done', type: 'boolean', default: false },
    { name: 'due', type: 'timestamp' },
  ],
  rules: { list: '', view: '' },
};

describe('dashboard: create-only new tables and versioned saves', { skip }, () => {
  let server: TestServer;
  let project: TestProject;
  let browser: Browser;
  const tabs: DashboardTab[] = [];
  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'demo');
    browser = (await launched)!;
    const created = await server.request('PUT', `/p/${project.id}/v1/tables/tasks`, {
      headers: project.admin,
      body: QUICKSTART,
    });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    for (const tab of tabs) await tab.close();
    await server?.close();
  });

  const signedIn = async (): Promise<Page> => {
    const tab = await openDashboard(browser, server.url);
    tabs.push(tab);
    await signInWithPlatformKey(tab);
    await tab.page.getByTestId('projects').waitFor();
    return tab.page;
  };
  const tableNow = async (name: string) =>
    (await server.request('GET', `/p/${project.id}/v1/tables/${name}`, { headers: platform })).body.data;
  const fillNewTable = async (page: Page, name: string, columns: [string, string][]) => {
    await page.goto(`${server.url}/_/#/p/${project.id}`);
    await page.getByTestId('new-table').click();
    await page.locator('input[name=table-name]').fill(name);
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) await page.getByTestId('add-column').click();
      await page.getByTestId(`column-${i}`).locator('input[name=column-name]').fill(columns[i]![0]);
      await page.getByTestId(`column-${i}`).locator('select[name=column-type]').selectOption(columns[i]![1]);
    }
  };

  it('New table named like an existing table is refused, and that table keeps its rules and columns', async () => {
    const before = await tableNow('tasks');
    const page = await signedIn();
    await fillNewTable(page, 'tasks', [
      ['title', 'text'],
      ['done', 'boolean'],
      ['note', 'text'],
    ]);
    await page.getByTestId('save-table').click();
    const notice = page.getByTestId('table-exists');
    await notice.getByText('A table named tasks exists already: open it to edit').waitFor();
    assert.ok(await notice.isVisible());
    await screenshot(page, 'table-exists');
    assert.deepEqual(await tableNow('tasks'), before, 'the existing table is unchanged');
    assert.deepEqual((await tableNow('tasks')).rules, { list: '', view: '', create: null, update: null, delete: null });
    const list = await server.request('GET', `/p/${project.id}/api/tasks`, { headers: project.anon });
    assert.equal(list.status, 200, `the pk_ list still works: ${list.text}`);
    // The link in the message opens the existing table's editor.
    await notice.getByRole('link', { name: 'Open tasks' }).click();
    await page.getByText('Schema of tasks').waitFor();
  });

  it('creating a table lands on its rows page', async () => {
    const page = await signedIn();
    await fillNewTable(page, 'notes', [['body', 'text']]);
    await page.getByTestId('save-table').click();
    await page.getByTestId('rows').waitFor();
    assert.match(page.url(), /#\/p\/demo\/tables\/notes$/);
    assert.deepEqual(
      (await tableNow('notes')).columns.map((c: { name: string }) => c.name),
      ['body'],
    );
  });

  it('two editors on one table: the second save is refused as changed by someone else, then reloads', async () => {
    const first = await signedIn();
    const second = await signedIn();
    for (const page of [first, second]) {
      await page.goto(`${server.url}/_/#/p/${project.id}/tables/tasks/schema`);
      await page.getByText('Schema of tasks').waitFor();
      await page.getByTestId('column-0').locator('input[name=column-name]').waitFor();
    }
    await first.locator('input[name=rule-create-locked]').uncheck();
    await first.getByTestId('save-table').click();
    await first.getByTestId('saved').waitFor();
    assert.equal((await tableNow('tasks')).rules.create, '');

    await second.locator('input[name=rule-delete-locked]').uncheck();
    await second.getByTestId('save-table').click();
    const notice = second.getByTestId('schema-changed');
    await notice.getByText('Someone else changed the table tasks since you opened it').waitFor();
    assert.ok(await notice.isVisible(), 'the message is in view');
    await screenshot(second, 'schema-changed');
    const rules = (await tableNow('tasks')).rules;
    assert.equal(rules.create, '', "the first editor's change stays");
    assert.equal(rules.delete, null, "the second editor's change was not applied");

    await notice.getByTestId('reload-table').click();
    await second.getByTestId('schema-changed').waitFor({ state: 'detached' });
    // The notice goes once the current version is in the form.
    assert.equal(
      await second.locator('input[name=rule-create-locked]').isChecked(),
      false,
      'the reload shows the current rules',
    );
    await second.locator('input[name=rule-delete-locked]').uncheck();
    await second.getByTestId('save-table').click();
    await second.getByTestId('saved').waitFor();
    assert.equal((await tableNow('tasks')).rules.delete, '');
  });

  it('the destructive-change warning is in view after Save, and nothing changes until confirmed', async () => {
    const wide = { columns: Array.from({ length: 14 }, (_, i) => ({ name: `c${i}`, type: 'text' })) };
    assert.equal(
      (await server.request('PUT', `/p/${project.id}/v1/tables/wide`, { headers: platform, body: wide })).status,
      201,
    );
    const page = await signedIn();
    await page.goto(`${server.url}/_/#/p/${project.id}/tables/wide/schema`);
    await page.getByText('Schema of wide').waitFor();
    await page.getByTestId('column-13').getByRole('button', { name: 'Remove column c13' }).click();
    await page.getByTestId('save-table').click();
    const box = page.getByTestId('destructive');
    await box.getByText('SCHEMA_CHANGE_DESTRUCTIVE').waitFor();
    const inView = await box.evaluate((element) => {
      const rect = element.getBoundingClientRect();
      return rect.top >= 0 && rect.top < window.innerHeight;
    });
    assert.ok(inView, 'the warning is on screen');
    await screenshot(page, 'destructive-at-top');
    assert.equal((await tableNow('wide')).columns.length, 14);
    await box.getByTestId('apply-destructive').click();
    await page.getByTestId('saved').waitFor();
    assert.equal((await tableNow('wide')).columns.length, 13);
  });

  it('no page errors, dialogs or keys in URLs', () => {
    for (const tab of tabs) tab.assertClean();
  });
});
