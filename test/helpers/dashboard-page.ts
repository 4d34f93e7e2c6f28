/**
 * A dashboard tab in headless Chromium that records what a test must never see: console
 * errors (CSP violations included), uncaught page errors, dialogs (alert/confirm: script ran),
 * and every request URL (to prove no key ever travels in one).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { PLATFORM_KEY } from './test-server.js';

export interface DashboardTab {
  readonly page: Page;
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  readonly dialogs: string[];
  readonly requestUrls: string[];
  /** Asserts nothing bad was recorded and no URL carried `secrets` (the platform key always). */
  assertClean(secrets?: string[]): void;
  close(): Promise<void>;
}

/** Opens a fresh browser context (empty sessionStorage) on `${base}/_/`. */
export async function openDashboard(browser: Browser, base: string): Promise<DashboardTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  // A page that shows what it should does so within a second or two; fail fast otherwise.
  page.setDefaultTimeout(10_000);
  const tab: DashboardTab = {
    page,
    consoleErrors: [],
    pageErrors: [],
    dialogs: [],
    requestUrls: [],
    assertClean(secrets = []) {
      assert.deepEqual(tab.pageErrors, [], 'uncaught errors in the page');
      assert.deepEqual(tab.dialogs, [], 'a dialog opened: script ran');
      // A 4xx answer the page asked for and shows is logged by Chromium as "Failed to load resource": expected.
      assert.deepEqual(
        tab.consoleErrors.filter(
          (text) => !/Failed to load resource: the server responded with a status of (4\d\d)/.test(text),
        ),
        [],
        'console errors',
      );
      for (const url of tab.requestUrls) {
        for (const secret of [PLATFORM_KEY, ...secrets])
          assert.ok(!url.includes(secret), `a key travelled in a URL: ${url}`);
      }
      for (const secret of [PLATFORM_KEY, ...secrets])
        assert.ok(!page.url().includes(secret), 'a key is in the address bar');
    },
    close: () => context.close(),
  };
  page.on('console', (message) => {
    if (message.type() === 'error') tab.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => tab.pageErrors.push(String(error)));
  page.on('dialog', (dialog) => {
    tab.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('request', (request) => tab.requestUrls.push(request.url()));
  await page.goto(`${base}/_/`);
  return tab;
}

/** Signs in with the platform key (submits the form; the caller waits for the page it expects). */
export async function signInWithPlatformKey(tab: DashboardTab, key = PLATFORM_KEY): Promise<void> {
  await tab.page.getByTestId('signin-platform').click();
  await tab.page.locator('input[name=key]').fill(key);
  await tab.page.getByTestId('signin-submit').click();
}

/** Signs in with a project id and its admin key (submits the form; the caller waits for the page it expects). */
export async function signInWithAdminKey(tab: DashboardTab, projectId: string, key: string): Promise<void> {
  await tab.page.getByTestId('signin-project').click();
  await tab.page.locator('input[name=project]').fill(projectId);
  await tab.page.locator('input[name=key]').fill(key);
  await tab.page.getByTestId('signin-submit').click();
}

/** With UPDATE_SCREENSHOTS=1, writes docs/images/dashboard-<name>.png (the pictures in docs/dashboard.md). */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync('docs/images', { recursive: true });
  const viewport = page.viewportSize();
  if (options.fullPage && viewport) {
    // A window as tall as the page (rather than a stitched capture) keeps the sidebar whole.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: viewport.width, height: Math.min(height, 2400) });
  }
  await page.screenshot({ path: `docs/images/dashboard-${name}.png` });
  if (options.fullPage && viewport) await page.setViewportSize(viewport);
}
