/**
 * @engine sqlite
 * No key in the server's log: the real server process at LOG_LEVEL=trace serves a dashboard
 * session (sign in, create a project, open its pages, rotate its keys), and neither the
 * platform key nor any project key nor the dashboard token appears in what it wrote.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, signInWithPlatformKey } from '../helpers/dashboard-page.js';
import { PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const skip = browserSkipReason('dashboard');
const launched = skip ? undefined : launchBrowser();

describe('dashboard: no key in the server log', { skip }, () => {
  let server: ServerProcess;
  let browser: Browser;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-dashboard-logs-'));
  before(async () => {
    server = await startServerProcess(dataDir, { LOG_LEVEL: 'trace' }, 60_000);
    browser = (await launched)!;
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a whole session leaves request lines in the log but no key', async () => {
    const tab = await openDashboard(browser, server.url);
    await signInWithPlatformKey(tab, PROCESS_PLATFORM_KEY);
    const page = tab.page;
    await page.getByTestId('new-project').click();
    await page.locator('input[name=name]').fill('Logged');
    await page.locator('input[name=id]').fill('logged');
    await page.getByTestId('create-project').click();
    const adminKey = await page.getByTestId('created-admin-key').inputValue();
    const publishableKey = await page.getByTestId('created-publishable-key').inputValue();
    await page.getByTestId('open-created').click();
    await page.getByTestId('tables').waitFor();
    await page.getByTestId('nav-settings').click();
    // One key per rotation (each confirmed): the admin key, then the publishable one.
    await page.getByTestId('rotate-keys-submit').click();
    await page.getByTestId('confirm-rotate').click();
    const rotated = [await page.getByTestId('new-admin-key').inputValue()];
    await page.locator('select[name=rotate-which]').selectOption('pk');
    await page.getByTestId('rotate-keys-submit').click();
    await page.getByTestId('confirm-rotate').click();
    rotated.push(await page.getByTestId('new-publishable-key').inputValue());
    await page.getByTestId('nav-outbox').click();
    await page.getByTestId('outbox').waitFor();
    // The dashboard token stands for a key for 12 hours: it must stay out of the log as the keys do.
    const token = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem('rowbase.dashboard.session') ?? '{}').token as string,
    );
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-form').waitFor();
    const log = server.output();
    assert.match(log, /\/p\/logged\/v1\/rotate-keys/, 'the requests were logged');
    for (const key of [PROCESS_PLATFORM_KEY, adminKey, publishableKey, ...rotated, token]) {
      assert.ok(key.length > 20 && !log.includes(key), `a key is in the log: ${key.slice(0, 6)}…`);
    }
    tab.assertClean([PROCESS_PLATFORM_KEY, adminKey, ...rotated]);
    await tab.close();
  });
});
