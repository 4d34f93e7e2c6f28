/**
 * The verification link opened in a browser (Accept: text/html): a small page under the pages'
 * CSP, or a 303 to the project's `verify_redirect_url` with `?verified=true`; JSON clients keep
 * the JSON answer. The setting is validated against `allowed_redirect_origins`.
 * Browser-like requests go through plain fetch: the OpenAPI truthfulness check of
 * test-server.ts `request()` knows the JSON answers only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_CSP } from '../../src/http/page-headers.js';
import { assertError } from '../helpers/assert-error.js';
import { createAuthProject, patchSettings, signUp, tokenIn, waitForMail } from '../helpers/auth-fixtures.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('verification link in a browser', () => {
  let server: TestServer;
  let project: TestProject;
  let counter = 0;
  /** Signs a new user up and returns the token of their verification mail. */
  const freshToken = async (target = project): Promise<{ email: string; token: string }> => {
    const email = `user${++counter}@example.com`;
    await signUp(server, target, email);
    return { email, token: tokenIn(await waitForMail(server, target, email)) };
  };
  const open = (token: string, accept = BROWSER_ACCEPT, target = project) =>
    fetch(`${server.url}/p/${target.id}/auth/verify?token=${encodeURIComponent(token)}`, {
      headers: { accept },
      redirect: 'manual',
    });
  const settings = async () =>
    (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin })).body.data;
  const patch = (body: unknown) =>
    server.request('PATCH', `/p/${project.id}/v1/settings`, { headers: project.admin, body });

  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, {
      verifyEmail: true,
      settings: { app_name: '<script>alert(1)</script> & Co' },
    });
  });
  after(() => server.close());

  describe('the built-in page', () => {
    it('a valid link → 200 "Email verified" naming the email; CSP, no-store, no script or inline style', async () => {
      const { email, token } = await freshToken();
      const response = await open(token);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      assert.equal(response.headers.get('content-security-policy'), PAGE_CSP);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const html = await response.text();
      assert.match(html, /<h1>Email verified<\/h1>/);
      assert.ok(html.includes(email), html);
      assert.doesNotMatch(html, /<script|style=|<style|javascript:/i);
      const users = await server.request(
        'GET',
        `/p/${project.id}/api/users?filter=${encodeURIComponent(`email = "${email}"`)}`,
        { headers: project.admin },
      );
      assert.equal(users.body.data[0].email_verified, true, 'the user is verified');
    });

    it('the app name is rendered as text: <script> arrives escaped', async () => {
      const { token } = await freshToken();
      const html = await (await open(token)).text();
      assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'), html);
      assert.ok(!html.includes('<script>alert(1)'), html);
    });

    it('a used link → 400 text/html "This link did not work" with the reason, nothing verified twice', async () => {
      const { token } = await freshToken();
      assert.equal((await open(token)).status, 200);
      const again = await open(token);
      assert.equal(again.status, 400);
      assert.match(again.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(again.headers.get('content-security-policy'), PAGE_CSP);
      const html = await again.text();
      assert.match(html, /This link did not work/);
      assert.match(html, /invalid, used or expired/);
    });

    it('an unknown project → 404 text/html naming the problem', async () => {
      const response = await fetch(`${server.url}/p/no-such-project/auth/verify?token=x`, {
        headers: { accept: BROWSER_ACCEPT },
      });
      assert.equal(response.status, 404);
      assert.match(await response.text(), /No project has the id &quot;no-such-project&quot;/);
    });

    it('its stylesheet: GET /_pages/verify.css → 200 text/css with the same CSP', async () => {
      const response = await fetch(`${server.url}/_pages/verify.css`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/css/);
      assert.equal(response.headers.get('content-security-policy'), PAGE_CSP);
      assert.match(await response.text(), /\.mark/);
    });
  });

  describe('JSON clients keep the JSON answer', () => {
    for (const [name, accept] of [
      ['no Accept', undefined],
      ['Accept: */*', '*/*'],
      ['Accept: application/json', 'application/json'],
      ['JSON preferred over HTML', 'application/json, text/html;q=0.5'],
    ] as const) {
      it(`${name} → 200 {message, user}`, async () => {
        const { email, token } = await freshToken();
        const response = await server.request(
          'GET',
          `/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`,
          { headers: accept ? { accept } : {} },
        );
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.message, 'Email verified.');
        assert.equal(response.body.user.email, email);
      });
    }
    it('a used token → 400 AUTH_INVALID_ONE_TIME_TOKEN envelope', async () => {
      const { token } = await freshToken();
      await server.request('GET', `/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`);
      assertError(
        await server.request('GET', `/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`),
        400,
        'AUTH_INVALID_ONE_TIME_TOKEN',
      );
    });
  });

  describe('verify_redirect_url', () => {
    it('defaults to null', async () => {
      assert.equal((await settings()).verify_redirect_url, null);
    });

    const refused: [name: string, value: unknown][] = [
      ['an origin not in allowed_redirect_origins', 'https://evil.example.com/verified'],
      ['a javascript: URL', 'javascript:alert(1)'],
      ['a relative URL', '/verified'],
      ['a URL with a user name', 'https://app.example.com@evil.example.com/'],
      ['a number', 42],
    ];
    for (const [name, value] of refused) {
      it(`${name} → 400 VALIDATION_FAILED, setting unchanged`, async () => {
        await patchSettings(server, project, { allowed_redirect_origins: ['https://app.example.com'] });
        const response = await patch({ verify_redirect_url: value, app_name: 'changed?' });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.match(response.body.error.message, /verify_redirect_url/);
        const now = await settings();
        assert.equal(now.verify_redirect_url, null);
        assert.notEqual(now.app_name, 'changed?', 'nothing of the PATCH was applied');
      });
    }

    it('an origin allowed in the same PATCH → 200, then a browser goes there with ?verified=true', async () => {
      const response = await patch({
        allowed_redirect_origins: ['https://app.example.com', 'https://welcome.example.org'],
        verify_redirect_url: 'https://welcome.example.org/done?lang=fr&verified=maybe',
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.verify_redirect_url, 'https://welcome.example.org/done?lang=fr&verified=maybe');
      const { token } = await freshToken();
      const answer = await open(token);
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get('location'), 'https://welcome.example.org/done?lang=fr&verified=true');
      assert.equal(answer.headers.get('referrer-policy'), 'no-referrer', 'the token in this URL is not passed on');
    });

    it('a used link → 303 with ?verified=false&error=AUTH_INVALID_ONE_TIME_TOKEN', async () => {
      const { token } = await freshToken();
      await open(token);
      const answer = await open(token);
      assert.equal(answer.status, 303);
      assert.equal(
        answer.headers.get('location'),
        'https://welcome.example.org/done?lang=fr&verified=false&error=AUTH_INVALID_ONE_TIME_TOKEN',
      );
    });

    it('JSON clients are not redirected', async () => {
      const { token } = await freshToken();
      const response = await server.request('GET', `/p/${project.id}/auth/verify?token=${encodeURIComponent(token)}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.message, 'Email verified.');
    });

    it('once its origin leaves allowed_redirect_origins, browsers get the built-in page again', async () => {
      await patchSettings(server, project, { allowed_redirect_origins: ['https://app.example.com'] });
      const { token } = await freshToken();
      const answer = await open(token);
      assert.equal(answer.status, 200);
      assert.match(await answer.text(), /Email verified/);
    });

    it('null turns the redirect off', async () => {
      const response = await patch({ verify_redirect_url: null });
      assert.equal(response.status, 200);
      assert.equal(response.body.data.verify_redirect_url, null);
    });
  });
});
