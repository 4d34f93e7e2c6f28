/**
 * @rowbase/client in a real browser: a page served from one origin loads the SDK bundle
 * (esbuild, ESM) and talks to Rowbase on another origin under headless Chromium: sign up, create,
 * list, a session that survives a reload in localStorage, an error envelope read across
 * origins, and a refused origin surfacing as NETWORK_ERROR (contract §8, §10). The quickstart
 * page of docs/client.md is served as written, with the package's tsc build (plain ESM files,
 * no bundler), and used like a person would.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { PASSWORD, patchSettings } from '../helpers/auth-fixtures.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { createClientProject } from '../helpers/client-project.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>SDK test page</title>
<script type="module">
  import * as rowbase from '/rowbase-client.js';
  window.rowbase = rowbase;
  document.title = 'ready';
</script></head><body></body></html>`;

/** What the page server serves: the SDK bundle, the quickstart page and the package's build folder. */
interface PageFiles {
  readonly bundle: string;
  readonly quickstart: string;
  readonly distDir: string;
}

/** Serves the test pages and the SDK on its own port: the app's origin. */
async function startPageServer(files: PageFiles): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://page');
    const module = /^\/quickstart\/rowbase-client\/([a-z-]+\.js)$/.exec(url.pathname);
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (url.pathname === '/rowbase-client.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(files.bundle);
    } else if (url.pathname === '/quickstart/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(files.quickstart);
    } else if (module && existsSync(path.join(files.distDir, module[1]!))) {
      response
        .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' })
        .end(readFileSync(path.join(files.distDir, module[1]!)));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, server };
}

/** The package as `npm install` builds it (tsc: one ESM file per module, with declarations). */
function buildPackage(outDir: string): void {
  const tsc = path.resolve('node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'packages/client/tsconfig.json', '--outDir', outDir], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
}

/** The quickstart page of docs/client.md, pointed at this server and project (the three values it says to change). */
function quickstartPage(options: { url: string; project: string; apiKey: string }): string {
  const doc = readFileSync('docs/client.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Quickstart'));
  const html = /```html\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(html, 'docs/client.md has an html block in its quickstart');
  const replacements: [string, string][] = [
    ["url: 'http://127.0.0.1:8080'", `url: '${options.url}'`],
    ["project: 'demo'", `project: '${options.project}'`],
    ["apiKey: 'pk_...'", `apiKey: '${options.apiKey}'`],
  ];
  return replacements.reduce((page, [from, to]) => {
    assert.ok(page.includes(from), `the quickstart page no longer contains ${from}`);
    return page.replace(from, to);
  }, html);
}

/** The SDK built for browsers: one ESM file from packages/client/src, no Node code in it. */
async function bundleSdk(): Promise<string> {
  const result = await build({
    entryPoints: [path.resolve('packages/client/src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** What the page reports of a thrown error (a RowbaseError crosses into the test as plain data). */
interface PageError {
  isRowbaseError: boolean;
  status: number;
  code: string;
  message: string;
  suggestion: string;
  causeName: string | null;
}

const skip = browserSkipReason('@rowbase/client browser test');
// Launched at the top of the file: the helper closes the browser when the file's tests end.
const browserReady = skip ? undefined : launchBrowser();

describe('@rowbase/client in Chromium, cross-origin', { skip }, () => {
  let rowbase: TestServer;
  let pages: { origin: string; server: Server };
  let project: TestProject;
  let page: Page;
  let options: { url: string; project: string; apiKey: string };
  let distDir: string;

  before(async () => {
    rowbase = await startTestServer();
    project = await createClientProject(rowbase);
    distDir = mkdtempSync(path.join(tmpdir(), 'rowbase-client-dist-'));
    buildPackage(distDir);
    const quickstart = quickstartPage({ url: rowbase.url, project: project.id, apiKey: project.publishableKey });
    pages = await startPageServer({ bundle: await bundleSdk(), quickstart, distDir });
    // Only the test page's origin may call this project.
    await patchSettings(rowbase, project, { cors_origins: [pages.origin] });
    options = { url: rowbase.url, project: project.id, apiKey: project.publishableKey };
    page = await (await browserReady!).newPage();
    await openPage();
  });
  after(async () => {
    await page?.close();
    await new Promise((resolve) => pages?.server.close(resolve));
    await rowbase?.close();
    rmSync(distDir, { recursive: true, force: true });
  });

  async function openPage(): Promise<void> {
    await page.goto(`${pages.origin}/`);
    await page.waitForFunction(() => document.title === 'ready');
  }

  it('the page and Rowbase are on different origins', () => {
    assert.notEqual(new URL(pages.origin).origin, new URL(rowbase.url).origin);
  });

  it('signUp, create and list from the page, with the session in localStorage', async () => {
    const result = await page.evaluate(
      async ({ options, password }) => {
        const { createClient, localStorageStore } = (window as any).rowbase;
        const client = createClient({ ...options, store: localStorageStore('demo.session') });
        const { user } = await client.auth.signUp({ email: 'page@example.com', password, name: 'Page' });
        const created = await client.table('tasks').create({ title: 'From the browser', owner: user.id });
        const list = await client.table('tasks').list({ filter: 'title ~ "browser"', sort: ['-created_at'] });
        return {
          email: user.email,
          created: created.title,
          listed: list.data.map((row: { title: string }) => row.title),
          total: list.meta.total,
          stored: JSON.parse(localStorage.getItem('demo.session') ?? 'null')?.user?.email ?? null,
        };
      },
      { options, password: PASSWORD },
    );
    assert.deepEqual(result, {
      email: 'page@example.com',
      created: 'From the browser',
      listed: ['From the browser'],
      total: 1,
      stored: 'page@example.com',
    });
    const stored = await rowbase.request('GET', `/p/${project.id}/api/tasks`, { headers: project.admin });
    assert.deepEqual(
      stored.body.data.map((row: { title: string }) => row.title),
      ['From the browser'],
      'the row is on the server',
    );
  });

  it('after a reload, a new client starts signed in from localStorage and its token works', async () => {
    await openPage();
    const result = await page.evaluate(async (options) => {
      const { createClient, localStorageStore } = (window as any).rowbase;
      const client = createClient({ ...options, store: localStorageStore('demo.session') });
      const before = client.auth.session?.user?.email ?? null;
      const me = await client.auth.me();
      return { before, me: me.email };
    }, options);
    assert.deepEqual(result, { before: 'page@example.com', me: 'page@example.com' });
  });

  it('an error answer is read across origins: RowbaseError 400 VALIDATION_FILTER with its suggestion', async () => {
    const error: PageError = await page.evaluate(async (options) => {
      const { createClient, RowbaseError } = (window as any).rowbase;
      try {
        await createClient(options).table('tasks').list({ filter: 'titel = "x"' });
        throw new Error('the call succeeded');
      } catch (error: any) {
        return {
          isRowbaseError: error instanceof RowbaseError,
          status: error.status,
          code: error.code,
          message: error.message,
          suggestion: error.suggestion,
          causeName: error.cause?.name ?? null,
        };
      }
    }, options);
    assert.equal(error.isRowbaseError, true);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'VALIDATION_FILTER');
    assert.match(error.suggestion, /title/);
  });

  it('a project not allowing the page origin: the browser refuses, the SDK throws NETWORK_ERROR + cause', async () => {
    const closed = await createClientProject(rowbase);
    await patchSettings(rowbase, closed, { cors_origins: ['https://app.example.com'] });
    const error: PageError = await page.evaluate(
      async (options) => {
        const { createClient, RowbaseError } = (window as any).rowbase;
        try {
          await createClient(options).table('tasks').list();
          throw new Error('the call succeeded');
        } catch (error: any) {
          return {
            isRowbaseError: error instanceof RowbaseError,
            status: error.status,
            code: error.code,
            message: error.message,
            suggestion: error.suggestion,
            causeName: error.cause?.name ?? null,
          };
        }
      },
      { ...options, project: closed.id, apiKey: closed.publishableKey },
    );
    assert.deepEqual(
      { isRowbaseError: error.isRowbaseError, status: error.status, code: error.code, causeName: error.causeName },
      { isRowbaseError: true, status: 0, code: 'NETWORK_ERROR', causeName: 'TypeError' },
    );
    assert.match(error.suggestion, /cors_origins/);
    // The same request from the allowed origin's project works: it was the origin that was refused.
    const allowed = await rowbase.request('GET', `/p/${closed.id}/api/tasks`, {
      headers: { ...closed.anon, origin: 'https://app.example.com' },
    });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example.com');
  });

  it('two tabs of one origin: a sign-in and a sign-out in one reach the other through localStorage', async () => {
    const context = await (await browserReady!).newContext();
    try {
      const [first, second] = [await context.newPage(), await context.newPage()];
      for (const tab of [first, second]) {
        await tab.goto(`${pages.origin}/`);
        await tab.waitForFunction(() => document.title === 'ready');
      }
      await second.evaluate((options) => {
        const { createClient, localStorageStore } = (window as any).rowbase;
        const client = createClient({ ...options, store: localStorageStore('tabs.session') });
        (window as any).heard = [];
        client.auth.onChange((session: any, event: string) =>
          (window as any).heard.push([event, session?.user?.email ?? null]),
        );
      }, options);
      await first.evaluate(
        async ({ options, password }) => {
          const { createClient, localStorageStore } = (window as any).rowbase;
          const client = createClient({ ...options, store: localStorageStore('tabs.session') });
          await client.auth.signIn({ email: 'page@example.com', password });
          await client.auth.signOut();
        },
        { options, password: PASSWORD },
      );
      await second.waitForFunction(() => (window as any).heard.length >= 2);
      assert.deepEqual(await second.evaluate(() => (window as any).heard), [
        ['SIGNED_IN', 'page@example.com'],
        ['SIGNED_OUT', null],
      ]);
    } finally {
      await context.close();
    }
  });

  it("docs/client.md's quickstart page as written: lists, signs up via its form, stays signed in", async () => {
    await rowbase.request('POST', `/p/${project.id}/api/tasks`, {
      headers: project.admin,
      body: { title: 'Seeded <b>not bold</b>' },
    });
    const quickstart = await (await browserReady!).newPage();
    try {
      await quickstart.goto(`${pages.origin}/quickstart/`);
      const status = quickstart.locator('#status');
      await quickstart.waitForFunction(() =>
        /tasks, signed out$/.test(document.querySelector('#status')?.textContent ?? ''),
      );
      await quickstart.fill('input[name=email]', 'quick@example.com');
      await quickstart.fill('input[name=password]', PASSWORD);
      await quickstart.click('button');
      await quickstart.waitForFunction(() =>
        /signed in as quick@example\.com$/.test(document.querySelector('#status')?.textContent ?? ''),
      );
      const items = await quickstart.locator('#tasks li').allTextContents();
      assert.ok(items.includes('Seeded <b>not bold</b>'), `rendered as text: ${JSON.stringify(items)}`);
      assert.equal(await quickstart.locator('#tasks b').count(), 0, 'no markup from row values');
      await quickstart.reload();
      await quickstart.waitForFunction(() =>
        /signed in as quick@example\.com$/.test(document.querySelector('#status')?.textContent ?? ''),
      );
      assert.match((await status.textContent()) ?? '', /^\d+ tasks, signed in as quick@example\.com$/);
      const users = await rowbase.request(
        'GET',
        `/p/${project.id}/api/users?filter=${encodeURIComponent('email = "quick@example.com"')}`,
        { headers: project.admin },
      );
      assert.equal(users.body.meta.total, 1, 'the user exists on the server');
    } finally {
      await quickstart.close();
    }
  });
});
