/**
 * @engine sqlite
 * Without a built dashboard, /_/ answers 503 DASHBOARD_NOT_BUILT (saying to run npm run
 * build) with the page security headers, never a crash. The route is mounted on a bare
 * Fastify instance over an empty folder: the real server's build is left alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { registerDashboardRoutes } from '../../src/http/routes/dashboard.js';
import { assertError } from '../helpers/assert-error.js';

describe('dashboard not built', () => {
  let app: FastifyInstance;
  let base: string;
  const empty = mkdtempSync(path.join(tmpdir(), 'rowbase-no-dashboard-'));
  before(async () => {
    app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    registerErrorHandling(app);
    await registerDashboardRoutes(app, { root: empty });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  });

  for (const route of ['/_/', '/_', '/_/assets/index.js']) {
    it(`GET ${route} → 503 DASHBOARD_NOT_BUILT naming npm run build, with the page security headers`, async () => {
      const response = await fetch(`${base}${route}`);
      const text = await response.text();
      assertError({ status: response.status, body: JSON.parse(text), text }, 503, 'DASHBOARD_NOT_BUILT');
      assert.match(JSON.parse(text).error.suggestion, /npm run build/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    });
  }
});
