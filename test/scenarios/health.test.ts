import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('GET /health', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers 200 {status: ok} once storage is reachable', async () => {
    const response = await server.request('GET', '/health');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok' });
    assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with the NOT_FOUND envelope', async () => {
    const response = await server.request('GET', '/no/such/route');
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'NOT_FOUND');
    assert.ok(response.body.error.message.length > 0 && response.body.error.suggestion.length > 0);
  });
});

describe('GET /health right after start-up, before any other request', () => {
  it('answers 200 although nothing has touched storage yet (PLATFORM_KEY set, no lookups)', async () => {
    const fresh = await startTestServer();
    try {
      const response = await fresh.request('GET', '/health');
      assert.equal(response.status, 200, response.text);
    } finally {
      await fresh.close();
    }
  });
});
