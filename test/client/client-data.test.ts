/**
 * @rowbase/client data API against a started server: list with filter, shorthand filters,
 * sort, select and paging; get; create; update; delete; bulk; the rules seen through the
 * session; and every failure as a RowbaseError with its catalogue code (contract §4, §6, §10).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient, RowbaseError } from '../../packages/client/src/index.js';
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
  await ada.client.table('tasks').bulk([
    { title: 'Buy milk', priority: 2, owner: adaId },
    { title: 'Urgent: call the bank', priority: 5, owner: adaId },
    { title: 'Water plants', done: true, priority: 1, owner: adaId },
    { title: 'Urgent: file taxes', done: true, priority: 4, owner: adaId },
  ]);
});
after(() => server.close());

describe('table(name).list', () => {
  const titles = (rows: { title?: unknown }[]) => rows.map((row) => row.title);

  it('no options: every row in creation order, meta {total, limit 50, offset 0}', async () => {
    const { data, meta } = await ada.client.table('tasks').list();
    assert.deepEqual(titles(data), ['Buy milk', 'Urgent: call the bank', 'Water plants', 'Urgent: file taxes']);
    assert.deepEqual(meta, { total: 4, limit: 50, offset: 0, next_cursor: null });
    assert.deepEqual(Object.keys(data[0]!).sort(), [
      'created_at',
      'done',
      'id',
      'owner',
      'priority',
      'title',
      'updated_at',
    ]);
  });

  it('filter and sort: `done = false || title ~ "urgent"`, sort [-priority]', async () => {
    const { data, meta } = await ada.client
      .table('tasks')
      .list({ filter: 'done = false || title ~ "urgent"', sort: ['-priority'] });
    assert.deepEqual(titles(data), ['Urgent: call the bank', 'Urgent: file taxes', 'Buy milk']);
    assert.equal(meta.total, 3);
    const query = new URL(ada.sent.at(-1)!.path, server.url).searchParams;
    assert.deepEqual(
      [...query],
      [
        ['filter', 'done = false || title ~ "urgent"'],
        ['sort', '-priority'],
      ],
    );
  });

  it('shorthand filters (where), ANDed: {done: eq.true, priority: gt.3}', async () => {
    const { data } = await ada.client.table('tasks').list({ where: { done: 'eq.true', priority: 'gt.3' } });
    assert.deepEqual(titles(data), ['Urgent: file taxes']);
  });

  it('select: only the chosen columns and id', async () => {
    const { data } = await ada.client.table('tasks').list({ select: ['title'], sort: 'title', limit: 1 });
    assert.deepEqual(Object.keys(data[0]!).sort(), ['id', 'title']);
    assert.equal(data[0]!.title, 'Buy milk');
  });

  it('paging: limit 2 offset 2 sorted by title; count none gives total null', async () => {
    const page = await ada.client.table('tasks').list({ sort: ['title'], limit: 2, offset: 2 });
    assert.deepEqual(titles(page.data), ['Urgent: file taxes', 'Water plants']);
    assert.deepEqual(page.meta, { total: 4, limit: 2, offset: 2, next_cursor: null });
    const uncounted = await ada.client.table('tasks').list({ count: 'none', limit: 1 });
    assert.equal(uncounted.meta.total, null);
  });

  it('an unknown column in the filter → 400 VALIDATION_FILTER whose suggestion lists the columns', async () => {
    const error = await rejection(ada.client.table('tasks').list({ filter: 'titel = "x"' }));
    assertServerError(error, 400, 'VALIDATION_FILTER');
    assert.match(error.message, /titel/);
    assert.match(error.suggestion, /title/);
  });

  it('an unknown table → 404 TABLE_NOT_FOUND; an unknown project → 404 PROJECT_NOT_FOUND', async () => {
    const untyped = createClient({ url: server.url, project: project.id, apiKey: project.publishableKey });
    assertServerError(await rejection(untyped.table('nope').list()), 404, 'TABLE_NOT_FOUND');
    const elsewhere = createClient({ url: server.url, project: 'no-such-project', apiKey: project.publishableKey });
    assertServerError(await rejection(elsewhere.table('tasks').list()), 404, 'PROJECT_NOT_FOUND');
  });

  it('a wrong pk_ key → 401 AUTH_INVALID_KEY', async () => {
    const wrong = createClient({ url: server.url, project: project.id, apiKey: 'pk_not_a_key_of_this_project' });
    assertServerError(await rejection(wrong.table('tasks').list()), 401, 'AUTH_INVALID_KEY');
  });
});

describe('table(name): get, create, update, delete, bulk', () => {
  it('create returns the stored row (defaults applied); get reads it', async () => {
    const created = await ada.client.table('tasks').create({ title: 'Read a book', owner: adaId });
    assert.equal(created.title, 'Read a book');
    assert.equal(created.done, false);
    assert.equal(created.priority, null);
    assert.deepEqual(await ada.client.table('tasks').get(created.id), created);
  });

  it('update changes only the given columns and returns the row', async () => {
    const created = await ada.client.table('tasks').create({ title: 'Paint fence', owner: adaId });
    const updated = await ada.client.table('tasks').update(created.id, { done: true });
    assert.equal(updated.done, true);
    assert.equal(updated.title, 'Paint fence');
    assert.equal((await ada.client.table('tasks').get(created.id)).done, true);
  });

  it('delete removes the row (204); get then → 404 ROW_NOT_FOUND; delete again → 404 ROW_NOT_FOUND', async () => {
    const created = await ada.client.table('tasks').create({ title: 'Temporary', owner: adaId });
    assert.equal(await ada.client.table('tasks').delete(created.id), undefined);
    assertServerError(await rejection(ada.client.table('tasks').get(created.id)), 404, 'ROW_NOT_FOUND');
    assertServerError(await rejection(ada.client.table('tasks').delete(created.id)), 404, 'ROW_NOT_FOUND');
  });

  it('bulk creates every row in order and returns them', async () => {
    const rows = await ada.client.table('tasks').bulk([
      { title: 'Bulk one', owner: adaId },
      { title: 'Bulk two', owner: adaId, priority: 3 },
    ]);
    assert.deepEqual(
      rows.map((row) => [row.title, row.priority]),
      [
        ['Bulk one', null],
        ['Bulk two', 3],
      ],
    );
    assert.equal((await ada.client.table('tasks').list({ filter: 'title ~ "bulk"' })).meta.total, 2);
  });

  it('create with onConflict inserts, then updates the row holding the value (?on_conflict=)', async () => {
    const tasks = ada.client.table('tasks');
    const first = await tasks.create({ id: 'upsert-1', title: 'Upsert me', owner: adaId }, { onConflict: 'id' });
    const second = await tasks.create({ id: 'upsert-1', title: 'Upserted', owner: adaId }, { onConflict: 'id' });
    assert.equal(second.id, first.id);
    assert.equal(second.title, 'Upserted');
    assert.equal(second.created_at, first.created_at);
    assert.equal(ada.sent.at(-1)!.path, `/p/${project.id}/api/tasks?on_conflict=id`);
    const rows = await tasks.bulk(
      [
        { id: 'upsert-1', title: 'Bulk upserted', owner: adaId },
        { id: 'upsert-2', title: 'Bulk new', owner: adaId },
      ],
      { onConflict: 'id' },
    );
    assert.deepEqual(
      rows.map((row) => [row.id, row.title]),
      [
        ['upsert-1', 'Bulk upserted'],
        ['upsert-2', 'Bulk new'],
      ],
    );
    assert.equal(ada.sent.at(-1)!.path, `/p/${project.id}/api/tasks/bulk?on_conflict=id`);
    assertServerError(
      await rejection(tasks.create({ title: 'x', owner: adaId }, { onConflict: 'title' })),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('bulk with one bad row → 400 naming `row 1:`, and no row is written', async () => {
    const error = await rejection(
      ada.client.table('tasks').bulk([
        { title: 'Fine', owner: adaId },
        { title: 'x'.repeat(201), owner: adaId },
      ]),
    );
    assertServerError(error, 400, 'VALIDATION_FAILED');
    assert.match(error.message, /^row 1:/);
    assert.equal((await ada.client.table('tasks').list({ filter: 'title = "Fine"' })).meta.total, 0);
  });

  it('create with an unknown column → 400 VALIDATION_UNKNOWN_COLUMN; wrong type → 400 VALIDATION_FAILED', async () => {
    const untyped = ada.client.table('tasks') as unknown as {
      create(values: Record<string, unknown>): Promise<unknown>;
    };
    assertServerError(
      await rejection(untyped.create({ title: 'x', owner: adaId, colour: 'red' })),
      400,
      'VALIDATION_UNKNOWN_COLUMN',
    );
    assertServerError(
      await rejection(untyped.create({ title: 'x', owner: adaId, priority: 'high' })),
      400,
      'VALIDATION_FAILED',
    );
  });

  it("rules see the session: anonymous create → 403 FORBIDDEN; another user updating ada's row → 404", async () => {
    const anonymous = recordedClient(server, project);
    assertServerError(
      await rejection(anonymous.client.table('tasks').create({ title: 'Sneaky', owner: adaId })),
      403,
      'FORBIDDEN',
    );
    const [mine] = (await ada.client.table('tasks').list({ limit: 1 })).data;
    const bob = recordedClient(server, project);
    await bob.client.auth.signUp({ email: 'bob@example.com', password: PASSWORD });
    assertServerError(
      await rejection(bob.client.table('tasks').update(mine!.id, { done: true })),
      404,
      'ROW_NOT_FOUND',
    );
    assert.equal(bob.sent.at(-1)!.headers.get('authorization'), `Bearer ${bob.client.auth.session!.token}`);
  });

  it('ids and table names are path-encoded: an id with a slash is one segment → 404 ROW_NOT_FOUND', async () => {
    assertServerError(await rejection(ada.client.table('tasks').get('a/b')), 404, 'ROW_NOT_FOUND');
    assert.equal(ada.sent.at(-1)!.path, `/p/${project.id}/api/tasks/a%2Fb`);
  });
});

describe('failures without an answer', () => {
  it('a server that is not there → RowbaseError NETWORK_ERROR (status 0) with the fetch error as cause', async () => {
    const port = await closedPort();
    const offline = createClient({
      url: `http://127.0.0.1:${port}`,
      project: project.id,
      apiKey: project.publishableKey,
    });
    const error = await rejection(offline.table('tasks').list());
    assert.equal(error.code, 'NETWORK_ERROR');
    assert.equal(error.status, 0);
    assert.ok(error.cause instanceof TypeError, 'the cause is the TypeError fetch threw');
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(error.suggestion, /cors_origins/);
  });

  it('an aborted call → RowbaseError ABORTED with the abort reason as cause', async () => {
    const controller = new AbortController();
    const reason = new Error('user left the page');
    controller.abort(reason);
    const error = await rejection(ada.client.table('tasks').list({ signal: controller.signal }));
    assert.equal(error.code, 'ABORTED');
    assert.equal(error.cause, reason);
  });

  it('a body JSON cannot hold (a BigInt) → INVALID_BODY with the TypeError as cause; nothing is sent', async () => {
    const { client, sent } = recordedClient(server, project);
    const untyped = client.table('tasks') as unknown as { create(values: Record<string, unknown>): Promise<unknown> };
    const error = await rejection(untyped.create({ title: 'x', priority: 10n }));
    assert.equal(error.code, 'INVALID_BODY');
    assert.equal(error.status, 0);
    assert.ok(error.cause instanceof TypeError);
    assert.equal(sent.length, 0);
  });

  it('an answer that is not Rowbase JSON → RowbaseError INVALID_RESPONSE with the status', async () => {
    const client = createClient({
      url: server.url,
      project: project.id,
      apiKey: project.publishableKey,
      // A proxy in front of Rowbase answering with its own HTML page.
      fetch: async () =>
        new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    });
    const error = await rejection(client.table('tasks').list());
    assert.equal(error.code, 'INVALID_RESPONSE');
    assert.equal(error.status, 502);
    assert.ok(error.cause instanceof SyntaxError);
  });

  const badOptions: [string, Record<string, string>][] = [
    ['an admin key (sk_) is refused: the SDK never carries one', { apiKey: 'sk_secret' }],
    ['a relative url', { url: '/api' }],
    ['a url that is not http(s)', { url: 'ftp://example.com' }],
    ['an empty project', { project: '' }],
    ['no apiKey', { apiKey: '' }],
  ];
  for (const [name, options] of badOptions) {
    it(`createClient with ${name} → RowbaseError INVALID_CLIENT_OPTIONS`, () => {
      assert.throws(
        () => createClient({ url: server.url, project: project.id, apiKey: project.publishableKey, ...options }),
        (error: unknown) =>
          error instanceof RowbaseError && error.code === 'INVALID_CLIENT_OPTIONS' && error.suggestion.length > 0,
      );
    });
  }

  it('a trailing slash on url is fine', async () => {
    const client = createClient({ url: `${server.url}/`, project: project.id, apiKey: project.publishableKey });
    assert.equal((await client.table('tasks').list({ limit: 0 })).meta.limit, 0);
  });
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('table(name).list({ search })', () => {
  it('sends search= and gets the matching rows, most relevant first', async () => {
    const patched = await server.request('PATCH', `/p/${project.id}/v1/tables/tasks`, {
      headers: project.admin,
      body: { search: ['title'] },
    });
    assert.equal(patched.status, 200, patched.text);
    const { data, meta } = await ada.client.table('tasks').list({ search: 'urgent -taxes' });
    assert.deepEqual(
      data.map((row) => row.title),
      ['Urgent: call the bank'],
    );
    assert.equal(meta.total, 1);
    const query = new URL(ada.sent.at(-1)!.path, server.url).searchParams;
    assert.deepEqual([...query], [['search', 'urgent -taxes']]);
  });

  it('a refused query is a RowbaseError VALIDATION_FILTER', async () => {
    const error = await rejection(ada.client.table('tasks').list({ search: '!!!' }));
    assert.ok(error instanceof RowbaseError);
    assert.equal(error.code, 'VALIDATION_FILTER');
  });
});
