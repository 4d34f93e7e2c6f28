/**
 * @rowbase/client `batch` against a started server (contract §18): typed operations over
 * several tables sent as one POST /api/batch with the session's token, each under its own
 * rules; results in order; the first failure as a RowbaseError naming its index, nothing written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PASSWORD } from '../helpers/auth-fixtures.js';
import {
  assertServerError,
  createClientProject,
  recordedClient,
  rejection,
  type RecordedClient,
} from '../helpers/client-project.js';
import { startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let ada: RecordedClient;
let adaId: string;
before(async () => {
  server = await startTestServer();
  project = await createClientProject(server);
  ada = recordedClient(server, project);
  adaId = (await ada.client.auth.signUp({ email: 'ada@example.com', password: PASSWORD })).user.id;
});
after(() => server.close());

const titles = async () => (await ada.client.table('tasks').list({ sort: ['title'] })).data.map((row) => row.title);

describe('client.batch', () => {
  it('sends one POST /api/batch; returns each operation’s status and body in order', async () => {
    const [kept, doomed] = await ada.client.table('tasks').bulk([
      { title: 'keep', owner: adaId },
      { title: 'doomed', owner: adaId },
    ]);
    ada.sent.length = 0;
    const results = await ada.client.batch([
      { method: 'POST', table: 'tasks', body: { title: 'new', priority: 3, owner: adaId } },
      { method: 'PATCH', table: 'tasks', id: kept!.id, body: { done: true } },
      { method: 'DELETE', table: 'tasks', id: doomed!.id },
      { method: 'PATCH', table: 'users', id: adaId, body: { name: 'Ada' } },
    ]);
    assert.deepEqual(
      ada.sent.map((r) => `${r.method} ${r.path}`),
      [`POST /p/${project.id}/api/batch`],
    );
    assert.match(ada.sent[0]!.headers.get('authorization') ?? '', /^Bearer /);
    assert.equal(results[0].status, 201);
    assert.equal(results[0].body.data.title, 'new');
    assert.equal(results[0].body.data.priority, 3);
    assert.equal(results[1].status, 200);
    assert.equal(results[1].body.data.done, true);
    assert.deepEqual(results[2], { status: 204, body: null });
    assert.equal(results[3].body.data.name, 'Ada');
    assert.deepEqual(await titles(), ['keep', 'new']);
  });

  it('the first failing operation throws its own code, its message names the index; nothing is written', async () => {
    const before = await titles();
    const error = await rejection(
      ada.client.batch([
        { method: 'POST', table: 'tasks', body: { title: 'mine', owner: adaId } },
        // The create rule wants owner = the signed-in user.
        { method: 'POST', table: 'tasks', body: { title: 'not mine', owner: 'someone-else' } },
      ]),
    );
    assertServerError(error, 403, 'FORBIDDEN');
    assert.match(error.message, /^operations\[1\]: /);
    assert.deepEqual(await titles(), before);
  });

  it('a malformed batch → VALIDATION_FAILED before anything is written', async () => {
    const error = await rejection(ada.client.batch([]));
    assertServerError(error, 400, 'VALIDATION_FAILED');
  });
});
