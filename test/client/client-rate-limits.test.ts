/**
 * @rowbase/client against a project with `data_rate_limits` (contract §18): past the limit a
 * data call rejects with a RowbaseError RATE_LIMITED whose `retryAfter` is the server's
 * Retry-After, and the SDK does not retry on its own (one request sent per call).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { patchSettings } from '../helpers/auth-fixtures.js';
import { assertServerError, createClientProject, recordedClient, rejection } from '../helpers/client-project.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ RATE_LIMITS: 'on' });
});
after(() => server.close());

describe('data_rate_limits through the SDK', () => {
  it('the 3rd list in a minute (limit 2) → RowbaseError RATE_LIMITED with retryAfter; one request sent', async () => {
    const project = await createClientProject(server);
    await patchSettings(server, project, { data_rate_limits: { reads_per_minute: 2 } });
    const { client, sent } = recordedClient(server, project);
    for (let i = 0; i < 2; i++) await client.table('tasks').list();
    const before = sent.length;
    const error = await rejection(client.table('tasks').list());
    assertServerError(error, 429, 'RATE_LIMITED');
    assert.ok(
      Number.isInteger(error.retryAfter) && error.retryAfter! >= 1 && error.retryAfter! <= 60,
      `retryAfter ${error.retryAfter}`,
    );
    assert.equal(sent.length - before, 1, 'no retry of its own');
  });
});
