/**
 * @rowbase/client for issue 14: cursor paging (`after`, `pages()`), expand on list and get,
 * aggregates, and sessions (list, end one, sign out of other devices), against a started server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PASSWORD } from '../helpers/auth-fixtures.js';
import {
  createClient,
  type AuthUser,
  type RowbaseClient,
  type UntypedDatabase,
} from '../../packages/client/src/index.js';
import { assertServerError, createClientProject, recordedClient, rejection } from '../helpers/client-project.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
// Untyped (no generated declarations): the notes table is declared here.
let ada: { client: RowbaseClient<UntypedDatabase, AuthUser> };
let adaId: string;
before(async () => {
  server = await startTestServer();
  project = await createClientProject(server);
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'body', type: 'text' },
      { name: 'author', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      { name: 'stars', type: 'integer' },
    ],
    rules: { list: '', view: '', create: 'author = @request.auth.id' },
  });
  ada = { client: createClient({ url: server.url, project: project.id, apiKey: project.publishableKey }) };
  adaId = (await ada.client.auth.signUp({ email: 'ada@example.com', password: PASSWORD })).user.id;
  for (let i = 0; i < 5; i++)
    await ada.client.table('notes').create({ body: `note ${i}`, author: adaId, stars: i % 2 });
});
after(() => server.close());

describe('cursors, expand and aggregates', () => {
  it('list({ after }) and pages() walk every row by cursor; meta.next_cursor is null on the last page', async () => {
    const first = await ada.client.table('notes').list({ limit: 2 });
    assert.equal(typeof first.meta.next_cursor, 'string');
    const second = await ada.client.table('notes').list({ limit: 2, after: first.meta.next_cursor! });
    assert.deepEqual(
      second.data.map((row: { body?: unknown }) => row.body),
      ['note 2', 'note 3'],
    );
    const bodies: unknown[] = [];
    for await (const page of ada.client.table('notes').pages({ limit: 2 }))
      bodies.push(...page.data.map((row: { body?: unknown }) => row.body));
    assert.deepEqual(bodies, ['note 0', 'note 1', 'note 2', 'note 3', 'note 4']);
  });

  it('expand on list and get embeds the related rows', async () => {
    const { data } = await ada.client.table('notes').list({ limit: 1, expand: ['author'] });
    assert.equal((data[0] as { expand: { author: { email: string } } }).expand.author.email, 'ada@example.com');
    const row = await ada.client.table('notes').get(data[0]!.id as string, { expand: 'author' });
    assert.equal((row.expand!.author as { id: string }).id, adaId);
    assertServerError(
      await rejection(ada.client.table('notes').get(data[0]!.id as string, { expand: 'nope' })),
      400,
      'VALIDATION_FILTER',
    );
  });

  it('aggregate(select) returns groups and the number of groups', async () => {
    const result = await ada.client
      .table('notes')
      .aggregate(['stars', 'count()', 'total:sum(stars)'], { sort: ['-count'] });
    assert.deepEqual(result.data, [
      { stars: 0, count: 3, total: 0 },
      { stars: 1, count: 2, total: 2 },
    ]);
    assert.equal(result.meta.total, 2);
  });
});

describe('sessions', () => {
  it('sessions() marks the current one; endSession ends another; signOut({ scope: "others" }) keeps it', async () => {
    const phone = recordedClient(server, project);
    await phone.client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const laptop = recordedClient(server, project);
    await laptop.client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const listed = await phone.client.auth.sessions();
    assert.equal(listed.filter((s) => s.current).length, 1);
    assert.ok(listed.length >= 3);
    const laptopSession = (await laptop.client.auth.sessions()).find((s) => s.current)!;
    await phone.client.auth.endSession(laptopSession.id);
    assert.equal(
      (await phone.client.auth.sessions()).some((s) => s.id === laptopSession.id),
      false,
    );
    await phone.client.auth.signOut({ scope: 'others' });
    const left = await phone.client.auth.sessions();
    assert.equal(left.length, 1);
    assert.equal(left[0]!.current, true);
    await assert.rejects(ada.client.auth.me());
  });
});
