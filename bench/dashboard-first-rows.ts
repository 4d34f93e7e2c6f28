/**
 * `npm run bench:dashboard [-- --rows N]`: time to first rows in the dashboard on the
 * benchmark's events table (1,000,000 rows by default). Starts a server over a temporary
 * SQLite folder (or DATABASE_URL), seeds the table through the bulk API, then drives headless
 * Chromium: sign in, open the grid, sort by a column, filter, open the last page.
 * Prints the timings; never part of `npm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app/build-app.js';
import { loadConfig } from '../src/config/config.js';
import { eventRow, EVENTS } from './schema.js';

const PLATFORM_KEY = 'rb_bench_dashboard_platform_key_0123456789';
const rowsArg = process.argv.indexOf('--rows');
const ROWS = rowsArg > 0 ? Number(process.argv[rowsArg + 1]) : 1_000_000;
const BATCH = 10_000;
const headers = { 'x-platform-key': PLATFORM_KEY, 'content-type': 'application/json' };

async function send(base: string, method: string, route: string, body?: unknown): Promise<void> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-bench-dashboard-'));
const config = loadConfig({
  ...process.env,
  LOG_LEVEL: 'silent',
  PLATFORM_KEY,
  RATE_LIMITS: 'off',
  DATA_DIR: dataDir,
  PORT: '0',
  SQLITE_SYNCHRONOUS: 'normal',
});
const { app } = await buildApp(config);
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  await send(base, 'POST', '/v1/projects', { name: 'Dashboard bench', id: 'bench-dash' });
  await send(base, 'PUT', `/p/bench-dash/v1/tables/${EVENTS.name}`, {
    ...EVENTS.definition,
    indexes: [...(EVENTS.definition.indexes as string[][]), ['score']],
  });
  const seeded = performance.now();
  for (let start = 0; start < ROWS; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, ROWS - start) }, (_, i) => eventRow(start + i));
    await send(base, 'POST', `/p/bench-dash/api/${EVENTS.name}/bulk`, rows);
    if ((start / BATCH) % 10 === 0) process.stdout.write(`\rseeded ${start + rows.length} rows`);
  }
  console.log(`\rseeded ${ROWS} rows in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(120_000);
  await page.goto(`${base}/_/`);
  await page.getByTestId('signin-platform').click();
  await page.locator('input[name=key]').fill(PLATFORM_KEY);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('projects').waitFor();
  const firstRow = page.locator('[data-testid=rows][data-loading=false] tbody tr[data-row-id]').first();
  // Each step waits for a sign of its own answer (sort mark, count, page range), then for the rows.
  const measure = async (what: string, action: () => Promise<unknown>, answered?: string) => {
    const started = performance.now();
    await action();
    if (answered) await page.locator(answered).first().waitFor();
    await firstRow.waitFor();
    console.log(`${what}: ${(performance.now() - started).toFixed(0)} ms`);
  };
  await measure('time to first rows (cold page load, 50 of the total)', () =>
    page.goto(`${base}/_/#/p/bench-dash/tables/${EVENTS.name}`),
  );
  await page.getByTestId('page-info').getByText(`of ${ROWS}`).waitFor();
  await measure(
    'sort by score (indexed), first page',
    () => page.getByTestId('sort-score').click(),
    '[data-testid=sort-score][aria-sort=ascending]',
  );
  await measure(
    'filter kind = "k7" (indexed), first page',
    async () => {
      await page.locator('input[name=filter]').fill('kind = "k7"');
      await page.getByTestId('apply-filter').click();
    },
    `[data-testid=page-info]:has-text("of ${Math.ceil(ROWS / 100)}")`,
  );
  await measure('next page', () => page.getByTestId('next-page').click(), '[data-testid=page-info]:has-text("51–")');
} finally {
  await browser.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
