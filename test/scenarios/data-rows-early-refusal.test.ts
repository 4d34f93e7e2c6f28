import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

/**
 * Sends the headers of a large JSON body plus a few bytes of it, and resolves with the
 * answer the server gives before the rest arrives (or rejects after `waitMs`).
 */
function answerBeforeBody(
  server: TestServer,
  path: string,
  headers: Record<string, string>,
  declaredBytes = 16 * 1024 * 1024 - 1,
  waitMs = 5000,
): Promise<{ status: number; body: any }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(declaredBytes), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('the server waited for the body before answering'));
    }, waitMs);
    req.on('error', () => undefined); // destroyed on purpose once answered
    req.write('[{"title": "x"},');
  });
}

// Credentials (and a create rule that can never pass) are checked before the body is read,
// so an anonymous client cannot make the server buffer and parse a 16 MiB bulk body.
describe('data API: refusals come before the body is read', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await putTable(server, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: { create: null } });
  });
  after(() => server.close());

  const cases: [string, () => string, () => Record<string, string>, number, string][] = [
    ['no credentials → 401 AUTH_REQUIRED', () => `/p/${project.id}/api/notes/bulk`, () => ({}), 401, 'AUTH_REQUIRED'],
    [
      'a wrong key → 401 AUTH_INVALID_KEY',
      () => `/p/${project.id}/api/notes/bulk`,
      () => ({ 'x-api-key': 'pk_wrong' }),
      401,
      'AUTH_INVALID_KEY',
    ],
    [
      'an unknown project → 404 PROJECT_NOT_FOUND',
      () => '/p/no-such-project/api/notes/bulk',
      () => ({}),
      404,
      'PROJECT_NOT_FOUND',
    ],
    [
      'the pk_ key on a locked create rule → 403 FORBIDDEN',
      () => `/p/${project.id}/api/notes/bulk`,
      () => project.anon,
      403,
      'FORBIDDEN',
    ],
    [
      'an unknown table → 404 TABLE_NOT_FOUND',
      () => `/p/${project.id}/api/nope/bulk`,
      () => project.anon,
      404,
      'TABLE_NOT_FOUND',
    ],
    [
      'a single create with the pk_ key on a locked rule → 403 FORBIDDEN',
      () => `/p/${project.id}/api/notes`,
      () => project.anon,
      403,
      'FORBIDDEN',
    ],
  ];
  it('a declared Content-Length over the limit → 413 PAYLOAD_TOO_LARGE before credentials are looked at', async () => {
    const answer = await answerBeforeBody(server, `/p/${project.id}/api/notes`, {}, 2 * 1024 * 1024);
    assert.equal(answer.status, 413, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'PAYLOAD_TOO_LARGE');
  });

  for (const [name, path, headers, status, code] of cases) {
    it(name, async () => {
      // Just under the route's limit (16 MiB for bulk, 1 MiB otherwise), so only the refusal under test applies.
      const limit = path().endsWith('/bulk') ? 16 * 1024 * 1024 : 1024 * 1024;
      const answer = await answerBeforeBody(server, path(), headers(), limit - 1);
      assert.equal(answer.status, status, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, code);
    });
  }
});
