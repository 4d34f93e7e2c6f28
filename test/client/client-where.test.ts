/**
 * @rowbase/client `updateWhere` and `deleteWhere` against a started server (contract §18):
 * the count, dry runs, the rule seen through the session, the request sent, and failures as
 * RowbaseError with their catalogue codes.
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
let bob: RecordedClient;
before(async () => {
  server = await startTestServer();
  project = await createClientProject(server);
  ada = recordedClient(server, project);
  bob = recordedClient(server, project);
  const adaId = (await ada.client.auth.signUp({ email: 'ada@example.com', password: PASSWORD })).user.id;
  await bob.client.auth.signUp({ email: 'bob@example.com', password: PASSWORD });
  await ada.client.table('tasks').bulk([
    { title: 'one', priority: 1, owner: adaId },
    { title: 'two', priority: 2, owner: adaId },
    { title: 'three', priority: 3, owner: adaId },
  ]);
});
after(() => server.close());

describe('table(name).updateWhere and deleteWhere', () => {
  it('dryRun counts without writing; the query carries filter and dry_run=true', async () => {
    assert.equal(await ada.client.table('tasks').updateWhere('priority >= 2', { done: true }, { dryRun: true }), 2);
    const sent = ada.sent.at(-1)!;
    assert.equal(sent.method, 'PATCH');
    assert.deepEqual(
      [...new URL(sent.path, server.url).searchParams],
      [
        ['filter', 'priority >= 2'],
        ['dry_run', 'true'],
      ],
    );
    assert.equal((await ada.client.table('tasks').list({ filter: 'done = true' })).meta.total, 0);
  });

  it('updateWhere changes the matching rows the rule allows and returns their count', async () => {
    assert.equal(await bob.client.table('tasks').updateWhere('true', { done: true }), 0, 'not his rows');
    assert.equal(await ada.client.table('tasks').updateWhere('priority >= 2', { done: true }), 2);
    const { data } = await ada.client.table('tasks').list({ filter: 'done = true', sort: ['priority'] });
    assert.deepEqual(
      data.map((row) => row.title),
      ['two', 'three'],
    );
  });

  it('deleteWhere deletes the matching rows the rule allows and returns their count', async () => {
    assert.equal(await ada.client.table('tasks').deleteWhere('done = true', { dryRun: true }), 2);
    assert.equal(await bob.client.table('tasks').deleteWhere('true'), 0);
    assert.equal(await ada.client.table('tasks').deleteWhere('done = true'), 2);
    assert.equal(ada.sent.at(-1)!.method, 'DELETE');
    const { data } = await ada.client.table('tasks').list();
    assert.deepEqual(
      data.map((row) => row.title),
      ['one'],
    );
  });

  it('failures are RowbaseErrors: an empty filter, a bad filter, a bad body', async () => {
    const tasks = ada.client.table('tasks');
    assertServerError(await rejection(tasks.updateWhere('', { done: true })), 400, 'VALIDATION_FILTER');
    assertServerError(await rejection(tasks.deleteWhere('nope = 1')), 400, 'VALIDATION_FILTER');
    // @ts-expect-error: the generated Update type has no such column
    const unknown = tasks.updateWhere('true', { nope: 1 });
    assertServerError(await rejection(unknown), 400, 'VALIDATION_UNKNOWN_COLUMN');
    assert.equal((await tasks.list()).meta.total, 1);
  });
});
