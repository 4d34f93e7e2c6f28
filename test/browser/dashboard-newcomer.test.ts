/**
 * What a newcomer hit in the dashboard (issue 21): a one-click rotation of both keys, saves
 * that sent unchanged rows, a JSON error without its column, a reference picker of bare ids,
 * snake_case settings, two date formats, placeholders that read like values, a grid unusable
 * on a phone, and a Users page that could neither create a user nor send a reset mail.
 * Each test asserts what a person sees or what goes over the wire.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { assertError } from '../helpers/assert-error.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { openDashboard, screenshot, signInWithAdminKey, type DashboardTab } from '../helpers/dashboard-page.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const skip = browserSkipReason('dashboard');
const launched = skip ? undefined : launchBrowser();
const platform = { 'x-platform-key': PLATFORM_KEY };
/** The one date format of the dashboard: UTC, to the second. */
const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;

/** The writes (anything but GET) the page sends from now on. */
function recordWrites(page: Page): Request[] {
  const writes: Request[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET' && request.method() !== 'OPTIONS') writes.push(request);
  });
  return writes;
}

describe('dashboard: what a newcomer hit (issue 21)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let project: TestProject;
  let tab: DashboardTab;
  let page: Page;
  let customer: { id: string };
  let item: { id: string; updated_at: string };
  before(async () => {
    server = await startTestServer();
    browser = (await launched)!;
    project = await createProject(server, 'newcomer');
    await putTable(server, project, 'customers', { columns: [{ name: 'name', type: 'text' }] });
    await putTable(server, project, 'items', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'qty', type: 'integer' },
        { name: 'due', type: 'timestamp' },
        { name: 'meta', type: 'json' },
        { name: 'customer', type: 'text', references: { table: 'customers', on_delete: 'set_null' } },
      ],
    });
    await putTable(server, project, 'members', { auth_table: true, columns: [{ name: 'nickname', type: 'text' }] });
    customer = (
      await server.request('POST', `/p/${project.id}/api/customers`, {
        headers: platform,
        body: { name: 'Ada Lovelace' },
      })
    ).body.data;
    item = (
      await server.request('POST', `/p/${project.id}/api/items`, {
        headers: platform,
        body: { title: 'Lamp', qty: 2, due: '2026-12-01T09:30:00Z', meta: { a: 1 }, customer: customer.id },
      })
    ).body.data;
    tab = await openDashboard(browser, server.url);
    page = tab.page;
    await signInWithAdminKey(tab, project.id, project.adminKey);
    await page.getByTestId('tables').waitFor();
  });
  after(async () => {
    await tab?.close();
    await server?.close();
  });

  /** Opens a dashboard route on a fresh page load: nothing left over from the test before (an open dialog). */
  const show = async (route: string) => {
    await page.goto(`${server.url}/_/#/p/${project.id}${route}`);
    await page.reload();
  };
  const openItems = async () => {
    await show('/tables/items');
    await page.locator(`[data-testid=rows][data-loading=false] tr[data-row-id="${item.id}"]`).waitFor();
  };
  const openItemForm = async () => {
    await openItems();
    await page.locator(`tr[data-row-id="${item.id}"] td`).nth(1).click();
    await page.getByTestId('row-form').waitFor();
  };

  it('saving an unchanged row sends nothing and says "No changes"; a change sends only the changed field', async () => {
    await openItemForm();
    const form = page.getByTestId('row-form');
    const writes = recordWrites(page);
    // A field filled with the value it already had is no change either.
    await form.locator('input[name=field-qty]').fill('2');
    await form.getByTestId('save-row').click();
    await form.getByText('No changes', { exact: true }).waitFor();
    assert.deepEqual(
      writes.map((r) => r.method()),
      [],
      'no request for an unchanged row',
    );
    const stored = (await server.request('GET', `/p/${project.id}/api/items/${item.id}`, { headers: platform })).body
      .data;
    assert.equal(stored.updated_at, item.updated_at, 'updated_at did not move');
    await form.locator('input[name=field-title]').fill('Desk lamp');
    await form.getByTestId('save-row').click();
    await page.getByTestId('row-form').waitFor({ state: 'detached' });
    const patches = writes.filter((r) => r.method() === 'PATCH');
    assert.equal(patches.length, 1);
    assert.deepEqual(patches[0]!.postDataJSON(), { title: 'Desk lamp' });
  });

  it('bad JSON in a json column is named at the field with the parse error, and nothing is sent', async () => {
    await openItemForm();
    const form = page.getByTestId('row-form');
    const writes = recordWrites(page);
    await form.locator('textarea[name=field-meta]').fill('{"a": 1}}');
    await form.getByTestId('save-row').click();
    const fieldError = form.getByTestId('field-error-meta');
    await fieldError.waitFor();
    const text = (await fieldError.textContent()) ?? '';
    assert.match(text, /^meta: .*JSON.*position \d+/, text);
    assert.equal(await form.getByText('CLIENT_ERROR').count(), 0, 'no generic client error');
    assert.equal(await form.getByText('Reload the page').count(), 0);
    assert.deepEqual(
      writes.map((r) => r.method()),
      [],
      'nothing sent',
    );
    await screenshot(page, 'row-form-json-error');
    await page.keyboard.press('Escape');
  });

  it("the reference picker lists the referenced rows by the grid's label and the end of their id", async () => {
    await openItems();
    const cell = page.locator(`tr[data-row-id="${item.id}"]`).getByTestId('reference-customer');
    const gridText = ((await cell.textContent()) ?? '').trim();
    assert.equal(gridText, `Ada Lovelace …${customer.id.slice(-6)}`);
    await page.getByTestId('new-row').click();
    const form = page.getByTestId('row-form');
    await form.getByText('Pick from customers').click();
    const option = form.getByRole('button', { name: gridText });
    await option.waitFor();
    assert.equal(await option.getAttribute('title'), `customers ${customer.id}`);
    await option.click();
    assert.equal(await form.locator('input[name=field-customer]').inputValue(), customer.id);
    await screenshot(page, 'row-form-picker');
    await page.keyboard.press('Escape');
  });

  it('dates read the same everywhere (UTC, to the second) with the full ISO value in a tooltip', async () => {
    await openItems();
    const row = page.locator(`tr[data-row-id="${item.id}"]`);
    const names = await page
      .getByTestId('rows')
      .locator('thead th')
      .evaluateAll((ths) => ths.map((th) => th.getAttribute('data-testid')));
    for (const column of ['created_at', 'due']) {
      const cell = row.locator('td').nth(names.indexOf(`sort-${column}`));
      const text = ((await cell.textContent()) ?? '').trim();
      assert.match(text, DATE, `${column}: ${text}`);
      const stored = (await server.request('GET', `/p/${project.id}/api/items/${item.id}`, { headers: platform })).body
        .data;
      assert.equal(await cell.locator('time').getAttribute('title'), stored[column]);
    }
    await row.locator('td').nth(1).click();
    const header = page.getByTestId('row-form').locator('time').first();
    assert.match(((await header.textContent()) ?? '').trim(), DATE);
    await page.keyboard.press('Escape');
    await show('/settings');
    const created = page.getByTestId('keys').locator('tbody tr').first().locator('time').first();
    assert.match(((await created.textContent()) ?? '').trim(), DATE);
  });

  it('placeholders read as hints ("e.g. …", lighter and italic), never as values', async () => {
    await openItems();
    await page.getByTestId('new-row').click();
    const form = page.getByTestId('row-form');
    const placeholders = await form
      .locator('[placeholder]')
      .evaluateAll((fields) => fields.map((f) => f.getAttribute('placeholder')!));
    assert.ok(placeholders.length > 0);
    for (const placeholder of placeholders) assert.match(placeholder, /^(e\.g\. |search )/, placeholder);
    const style = await form
      .locator('textarea[name=field-meta]')
      .evaluate((field) => getComputedStyle(field, '::placeholder').fontStyle);
    assert.equal(style, 'italic');
    await page.keyboard.press('Escape');
    await show('/settings');
    await page.getByTestId('settings-form').waitFor();
    for (const placeholder of await page
      .locator('[placeholder]')
      .evaluateAll((fields) => fields.map((f) => f.getAttribute('placeholder')!))) {
      assert.match(placeholder, /^(e\.g\. |search )/, placeholder);
    } // The table editor: an empty option reads as what it means ("no default"), never as a value.
    await show('');
    await page.getByTestId('new-table').click();
    await page.locator('input[name=table-name]').waitFor();
    const editor = await page
      .locator('[placeholder]')
      .evaluateAll((fields) => fields.map((f) => f.getAttribute('placeholder')!));
    assert.ok(editor.length >= 4, editor.join(' | '));
    for (const placeholder of editor)
      assert.match(placeholder, /^(e\.g\. |no |search |null \(admin only\)|"" \(anyone\))/, placeholder);
  });

  it('settings carry human labels with units and help, not snake_case keys', async () => {
    await show('/settings');
    const form = page.getByTestId('settings-form');
    await form.waitFor();
    await form.getByLabel('Access token lifetime (seconds)').waitFor();
    await form.getByLabel('Refresh token lifetime (seconds)').waitFor();
    await form.getByLabel('Allowed redirect origins').waitFor();
    const text = (await form.textContent()) ?? '';
    for (const key of [
      'access_token_ttl',
      'refresh_token_ttl',
      'allowed_redirect_origins',
      'per_address_per_minute',
      'min_password_length',
    ]) {
      assert.ok(!text.includes(key), `the raw key ${key} shows`);
    }
    await page.locator('input[name=setting-access_token_ttl]').fill('900');
    await page.getByTestId('save-settings').click();
    await form.getByText('Saved.').waitFor();
    assert.equal(
      (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: platform })).body.data.access_token_ttl,
      900,
    );
  });

  it('the rows grid at phone width (375 px) scrolls in its frame; the toolbar and actions stay reachable', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await openItems();
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(pageWidth <= 375, `the page itself scrolls sideways: ${pageWidth} px`);
      const frame = await page
        .locator('.grid-wrap')
        .evaluate((wrap) => ({ scroll: wrap.scrollWidth, client: wrap.clientWidth }));
      assert.ok(frame.scroll > frame.client, 'the grid scrolls within its frame');
      for (const testId of ['new-row', 'apply-filter', 'open-schema']) {
        const box = (await page.getByTestId(testId).boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= 375, `${testId} is off screen: ${JSON.stringify(box)}`);
      }
      await screenshot(page, 'rows-phone');
      await page.getByTestId('new-row').click();
      await page.getByTestId('save-row').waitFor();
      const save = (await page.getByTestId('save-row').boundingBox())!;
      assert.ok(save.x + save.width <= 375, 'the form fits');
      await page.keyboard.press('Escape');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('Users: "New user" creates a user who can sign in over HTTP; a refusal shows the server\'s reason', async () => {
    await show('/users');
    await page.getByTestId('new-user').click();
    const form = page.getByTestId('row-form');
    await form.locator('input[name=field-email]').fill('newbie@example.com');
    await form.locator('input[name=field-password]').fill('short');
    await form.locator('input[name=field-nickname]').fill('Newbie');
    await form.getByTestId('save-row').click();
    await form.getByTestId('row-error').getByText('VALIDATION_PASSWORD').waitFor();
    await form.locator('input[name=field-password]').fill('correct horse battery');
    await form.getByTestId('save-row').click();
    await page.locator('[data-user="newbie@example.com"]').waitFor();
    const login = await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'newbie@example.com', password: 'correct horse battery' },
    });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.user.nickname, 'Newbie');
  });

  it('Users: "Send password reset" says when no redirect origin is set, then mails to a picked origin', async () => {
    await show('/users');
    const user = page.locator('[data-user="newbie@example.com"]');
    await user.getByRole('button', { name: 'Send password reset' }).click();
    const dialog = page.getByTestId('reset-dialog');
    await dialog.getByText('No redirect origins are configured').waitFor();
    assert.match(
      (await dialog.getByRole('link', { name: /settings/i }).getAttribute('href')) ?? '',
      /#\/p\/newcomer\/settings$/,
    );
    await page.keyboard.press('Escape');
    const origins = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
      headers: platform,
      body: { allowed_redirect_origins: ['https://app.example.com', 'https://staging.example.com'] },
    });
    assert.equal(origins.status, 200, origins.text);
    await page.reload();
    await user.getByRole('button', { name: 'Send password reset' }).click();
    await dialog.locator('select[name=reset-origin]').selectOption('https://staging.example.com');
    await dialog.locator('input[name=reset-path]').fill('/reset');
    const writes = recordWrites(page);
    await dialog.getByTestId('send-reset').click();
    await dialog.getByText('Reset mail requested for newbie@example.com').waitFor();
    const sent = writes.find((r) => r.url().endsWith('/auth/forgot-password'))!;
    assert.deepEqual(sent.postDataJSON(), {
      email: 'newbie@example.com',
      redirect_url: 'https://staging.example.com/reset',
    });
    await screenshot(page, 'users-reset');
    let mail: { to: string; text: string } | undefined;
    for (let i = 0; i < 50 && !mail; i++) {
      const emails = (await server.request('GET', `/p/${project.id}/v1/emails`, { headers: platform })).body.data as {
        to: string;
        text: string;
      }[];
      mail = emails.find(
        (m) => m.to === 'newbie@example.com' && m.text.includes('https://staging.example.com/reset?token='),
      );
      if (!mail) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(mail, 'the reset mail is in the outbox');
    await page.keyboard.press('Escape');
  });

  it('key rotation: one key, an hour of grace by default, a confirmation of what stops and when first', async () => {
    await show('/settings');
    await page.getByTestId('keys').locator('tbody tr').first().waitFor();
    const writes = recordWrites(page);
    const form = page.getByTestId('rotate-keys');
    assert.equal(await form.locator('select[name=rotate-which]').inputValue(), 'sk');
    assert.equal(await form.locator('select[name=rotate-grace]').inputValue(), '3600');
    assert.deepEqual(
      await form
        .locator('select[name=rotate-which] option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      ['sk', 'pk'],
      'no "both keys" choice',
    );
    await form.locator('select[name=rotate-which]').selectOption('pk');
    await page.getByTestId('rotate-keys-submit').click();
    const confirm = page.getByTestId('confirm-rotation');
    const message = (await confirm.getByTestId('rotation-consequence').textContent()) ?? '';
    assert.match(message, /Apps using the current pk_ key stop working in 1 hour, at \d\d:\d\d UTC/, message);
    assert.deepEqual(
      writes.map((r) => r.url()),
      [],
      'nothing sent before confirming',
    );
    await screenshot(page, 'rotate-confirm');
    await confirm.getByTestId('confirm-rotate').click();
    const fresh = await page.getByTestId('new-publishable-key').inputValue();
    assert.match(fresh, /^pk_/);
    assert.deepEqual(
      writes.map((r) => r.postDataJSON()),
      [{ type: 'pk', grace_seconds: 3600 }],
    );
    const keys = (await server.request('GET', `/p/${project.id}/v1/keys`, { headers: platform })).body.data as {
      type: string;
      expires_at: string | null;
    }[];
    const old = keys.find((k) => k.type === 'pk' && k.expires_at !== null)!;
    const lives = page.getByTestId('old-key-expiry');
    await lives.getByText(/The old pk_ key works until/).waitFor();
    assert.equal(await lives.locator('time').getAttribute('title'), old.expires_at);
    // Within the grace both publishable keys work.
    assert.equal(
      (
        await server.request('GET', `/p/${project.id}/api/customers`, {
          headers: { 'x-api-key': project.publishableKey },
        })
      ).status,
      403,
    );
    assert.equal(
      (await server.request('GET', `/p/${project.id}/api/customers`, { headers: { 'x-api-key': fresh } })).status,
      403,
    );
    await screenshot(page, 'key-rotated');
  });

  it('rotating its admin key with no grace: old key and token refused, the dashboard signs in anew', async () => {
    const oldToken = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem('rowbase.dashboard.session') ?? '{}').token as string,
    );
    await show('/settings');
    await page.getByTestId('keys').locator('tbody tr').first().waitFor();
    const form = page.getByTestId('rotate-keys');
    await form.locator('select[name=rotate-which]').selectOption('sk');
    await form.locator('select[name=rotate-grace]').selectOption('0');
    await page.getByTestId('rotate-keys-submit').click();
    const message = (await page.getByTestId('rotation-consequence').textContent()) ?? '';
    assert.match(message, /stop working immediately/, message);
    assert.match(message, /this dashboard signs in again with the new key/i, message);
    await page.getByTestId('confirm-rotate').click();
    const fresh = await page.getByTestId('new-admin-key').inputValue();
    assert.match(fresh, /^sk_/);
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: project.admin }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(
      await server.request('GET', `/p/${project.id}/v1/tables`, { headers: { 'x-dashboard-token': oldToken } }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    // The tab took a token made from the new key (never keeping
    // the key), and the pages still load, also after a reload.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
    assert.ok(!stored.includes(fresh) && !stored.includes(project.adminKey), 'no key in sessionStorage');
    const newToken = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem('rowbase.dashboard.session') ?? '{}').token as string,
    );
    assert.ok(newToken.startsWith('rbd_') && newToken !== oldToken, 'a new token');
    const sent: { key?: string; token?: string }[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/_/')) return;
      sent.push({ key: request.headers()['x-admin-key'], token: request.headers()['x-dashboard-token'] });
    });
    await page.getByTestId('nav-users').click();
    await page.locator('[data-user="newbie@example.com"]').waitFor();
    await page.reload();
    await page.locator('[data-user="newbie@example.com"]').waitFor();
    assert.ok(
      sent.length > 0 && sent.every((call) => call.key === undefined && call.token === newToken),
      'every later call carries the new token, no key',
    );
    assert.equal(await page.getByTestId('error').count(), 0);
    tab.assertClean([project.adminKey, fresh]);
  });
});
