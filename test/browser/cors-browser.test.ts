/**
 * CORS as a real browser enforces it (contract §8): a page served from one origin calls
 * Rowbase on another with `fetch` in headless Chromium. An allowed page reads answers and
 * errors (401, 404, 429 with Retry-After) and the exposed headers; a refused origin, an
 * admin path and the admin key are blocked by the browser itself.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAuthProject, patchSettings, PASSWORD } from '../helpers/auth-fixtures.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

/** What a page's fetch saw: the answer, or the TypeError the browser throws for a CORS refusal. */
type Seen =
  | { status: number; body: unknown; requestId: string | null; retryAfter: string | null }
  | { blocked: string };

/** Serves an empty HTML page on 127.0.0.1 (a page origin of its own, distinct from Rowbase's port). */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Runs fetch in the page and reports what the page could read. */
function pageFetch(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Seen> {
  return page.evaluate(
    async ([target, options]) => {
      try {
        const response = await fetch(target, options);
        const text = await response.text();
        return {
          status: response.status,
          body: text ? JSON.parse(text) : null,
          requestId: response.headers.get('x-request-id'),
          retryAfter: response.headers.get('retry-after'),
        };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    [url, init] as const,
  );
}

function assertRead(seen: Seen, status: number): Extract<Seen, { status: number }> {
  assert.ok('status' in seen, `the browser blocked the answer: ${JSON.stringify(seen)}`);
  assert.equal(seen.status, status, JSON.stringify(seen.body));
  return seen;
}

function assertBlocked(seen: Seen): void {
  assert.ok('blocked' in seen, `the page could read the answer: ${JSON.stringify(seen)}`);
  assert.match(seen.blocked, /TypeError|Failed to fetch/);
}

const skip = browserSkipReason('CORS browser tests');

describe('CORS in Chromium', { skip }, () => {
  // Launched while the suite is defined, so the helper's `after` closes it when the file ends.
  const launched = skip ? undefined : launchBrowser();
  let rowbase: TestServer;
  let allowedPage: { origin: string; server: Server };
  let otherPage: { origin: string; server: Server };
  let listed: TestProject;
  let open: TestProject;
  let pageA: Page;
  let pageB: Page;
  const api = (project: TestProject, path: string) => `${rowbase.url}/p/${project.id}${path}`;

  before(async () => {
    rowbase = await startTestServer({ RATE_LIMITS: 'on' });
    allowedPage = await startPageServer();
    otherPage = await startPageServer();
    listed = await createAuthProject(rowbase, {
      settings: { cors_origins: [allowedPage.origin], rate_limits: { per_address_per_minute: 2 } },
    });
    open = await createProject(rowbase);
    for (const project of [listed, open]) {
      await putTable(rowbase, project, 'notes', {
        columns: [{ name: 'title', type: 'text' }],
        rules: { list: '', view: '', create: '', update: '', delete: '' },
      });
    }
    const browser = await launched!;
    pageA = await browser.newPage();
    await pageA.goto(`${allowedPage.origin}/`);
    pageB = await browser.newPage();
    await pageB.goto(`${otherPage.origin}/`);
  });
  after(async () => {
    await pageA?.close();
    await pageB?.close();
    allowedPage?.server.close();
    otherPage?.server.close();
    await rowbase?.close();
  });

  it('a listed origin: list, create, update, delete with X-Api-Key (preflighted), X-Request-Id readable', async () => {
    const headers = { 'X-Api-Key': listed.publishableKey, 'Content-Type': 'application/json' };
    const created = assertRead(
      await pageFetch(pageA, api(listed, '/api/notes'), {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'from a page' }),
      }),
      201,
    );
    const id = (created.body as { data: { id: string } }).data.id;
    const listed200 = assertRead(await pageFetch(pageA, api(listed, '/api/notes'), { headers }), 200);
    assert.deepEqual(
      (listed200.body as { data: { title: string }[] }).data.map((row) => row.title),
      ['from a page'],
    );
    assert.match(listed200.requestId ?? '', /^[0-9a-f-]{36}$/);
    assertRead(
      await pageFetch(pageA, api(listed, `/api/notes/${id}`), {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ title: 'changed' }),
      }),
      200,
    );
    assertRead(await pageFetch(pageA, api(listed, `/api/notes/${id}`), { method: 'DELETE', headers }), 204);
  });

  it('errors are readable: 401 AUTH_REQUIRED, 404 TABLE_NOT_FOUND, 404 PROJECT_NOT_FOUND', async () => {
    const noKey = assertRead(await pageFetch(pageA, api(listed, '/api/notes')), 401);
    assert.equal((noKey.body as { error: { code: string } }).error.code, 'AUTH_REQUIRED');
    const noTable = assertRead(
      await pageFetch(pageA, api(listed, '/api/nope'), { headers: { 'X-Api-Key': listed.publishableKey } }),
      404,
    );
    assert.equal((noTable.body as { error: { code: string } }).error.code, 'TABLE_NOT_FOUND');
    const noProject = assertRead(
      await pageFetch(pageA, `${rowbase.url}/p/no-such-project/api/notes`, { headers: { 'X-Api-Key': 'pk_x' } }),
      404,
    );
    assert.equal((noProject.body as { error: { code: string } }).error.code, 'PROJECT_NOT_FOUND');
  });

  it('429 RATE_LIMITED at login is readable, with its Retry-After', async () => {
    const login = () =>
      pageFetch(pageA, api(listed, '/auth/login'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: PASSWORD }),
      });
    assertRead(await login(), 401);
    assertRead(await login(), 401);
    const limited = assertRead(await login(), 429);
    assert.equal((limited.body as { error: { code: string } }).error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.retryAfter) >= 1, `Retry-After: ${limited.retryAfter}`);
  });

  it('an unlisted origin: the browser blocks the answer, a simple GET and a preflighted POST alike', async () => {
    assertBlocked(await pageFetch(pageB, api(listed, '/api/notes')));
    assertBlocked(
      await pageFetch(pageB, api(listed, '/api/notes'), {
        method: 'POST',
        headers: { 'X-Api-Key': listed.publishableKey, 'Content-Type': 'application/json' },
        body: '{"title":"x"}',
      }),
    );
  });

  it('["*"] (the default): any page may call it', async () => {
    assertRead(await pageFetch(pageB, api(open, '/api/notes'), { headers: { 'X-Api-Key': open.publishableKey } }), 200);
  });

  it('the admin key from an allowed page: the browser refuses to send it (X-Admin-Key is never allowed)', async () => {
    assertBlocked(await pageFetch(pageA, api(listed, '/api/notes'), { headers: { 'X-Admin-Key': listed.adminKey } }));
    assertBlocked(await pageFetch(pageB, api(open, '/api/notes'), { headers: { 'X-Admin-Key': open.adminKey } }));
  });

  it('admin paths are never readable from a page, even on a ["*"] project', async () => {
    assertBlocked(await pageFetch(pageA, api(open, '/v1/settings')));
    assertBlocked(await pageFetch(pageA, `${rowbase.url}/v1/projects`));
  });

  it('removing the origin from cors_origins blocks the page at its next request', async () => {
    const project = await createProject(rowbase);
    await putTable(rowbase, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: { list: '' } });
    await patchSettings(rowbase, project, { cors_origins: [allowedPage.origin] });
    const headers = { 'X-Api-Key': project.publishableKey };
    assertRead(await pageFetch(pageA, api(project, '/api/notes'), { headers }), 200);
    await patchSettings(rowbase, project, { cors_origins: [] });
    // The preflight is cached by the browser (Max-Age), but the answer itself is refused.
    assertBlocked(await pageFetch(pageA, api(project, '/api/notes'), { headers }));
  });
});
