/**
 * Transactional batches (contract §18): POST /p/{id}/api/batch runs creates, updates and
 * deletes over several tables in one transaction, each under its own rules; the first failure
 * rolls everything back and names its index; bad input writes nothing; realtime events only
 * after the commit; the reserved table name "batch".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { bearer, createAuthProject, PASSWORD, signUp } from '../helpers/auth-fixtures.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import {
  createProject,
  putTable,
  startTestServer,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let other: TestProject;
const streams: SseStream[] = [];

const batch = (operations: unknown, headers: Record<string, string> = project.admin): Promise<TestResponse> =>
  server.request('POST', `/p/${project.id}/api/batch`, { headers, body: { operations } });
const get = (table: string, id: string) =>
  server.request('GET', `/p/${project.id}/api/${table}/${id}`, { headers: project.admin });
/** Every row of every table, to show that a refused batch wrote nothing. */
const snapshot = async () => {
  const out: Record<string, unknown> = {};
  for (const table of ['authors', 'books', 'notes']) {
    // Rows and total: a row written past the first page still changes the total.
    const { data, meta } = (
      await server.request('GET', `/p/${project.id}/api/${table}?limit=1000`, { headers: project.admin })
    ).body;
    out[table] = { data, total: meta.total };
  }
  return out;
};
const create = async (table: string, body: unknown) => {
  const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
};

before(async () => {
  server = await startTestServer();
  project = await createProject(server);
  other = await createProject(server);
  await putTable(server, project, 'authors', {
    columns: [
      { name: 'name', type: 'text', required: true },
      { name: 'handle', type: 'text', unique: true },
    ],
    rules: { list: '', view: '', create: '', update: '', delete: '' },
  });
  await putTable(server, project, 'books', {
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'pages', type: 'integer', min: 0 },
      { name: 'author', type: 'text', references: { table: 'authors', on_delete: 'restrict' } },
    ],
    // Anonymous callers may create short books, change and delete only books with pages.
    rules: { list: '', view: '', create: 'pages < 1000', update: 'pages > 0', delete: 'pages > 0' },
  });
  await putTable(server, project, 'notes', { columns: [{ name: 'text', type: 'text' }] });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

describe('POST /p/{id}/api/batch: success', () => {
  it('mixed creates, updates and deletes over several tables → 200 {data: [{status, body}]} in order', async () => {
    const doomed = await create('notes', { text: 'to delete' });
    const kept = await create('notes', { text: 'to change' });
    const response = await batch([
      { method: 'POST', table: 'authors', body: { id: 'ann', name: 'Ann', handle: 'ann' } },
      { method: 'POST', table: 'books', body: { title: 'First', pages: 10, author: 'ann' } },
      { method: 'PATCH', table: 'notes', id: kept.id, body: { text: 'changed' } },
      { method: 'DELETE', table: 'notes', id: doomed.id },
      { method: 'PATCH', table: 'authors', id: 'ann', body: { name: 'Ann B.' } },
    ]);
    assert.equal(response.status, 200, response.text);
    const data = response.body.data;
    assert.deepEqual(
      data.map((r: { status: number }) => r.status),
      [201, 201, 200, 204, 200],
    );
    assert.equal(data[3].body, null);
    assert.equal(data[1].body.data.author, 'ann', 'a later operation refers to a row created earlier');
    // Each body is what the single-row endpoint answers for the row as it is now.
    assert.deepEqual(data[1].body, (await get('books', data[1].body.data.id)).body);
    assert.deepEqual(data[2].body, (await get('notes', kept.id)).body);
    assert.deepEqual(data[4].body, (await get('authors', 'ann')).body);
    assert.equal(data[2].body.data.text, 'changed');
    assertError(await get('notes', doomed.id), 404, 'ROW_NOT_FOUND');
  });

  it('each operation runs under its own table rules (publishable key)', async () => {
    const response = await batch(
      [
        { method: 'POST', table: 'authors', body: { name: 'Anon' } },
        { method: 'POST', table: 'books', body: { title: 'Short', pages: 5 } },
      ],
      project.anon,
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.data.map((r: { status: number }) => r.status),
      [201, 201],
    );
  });
});

describe('POST /p/{id}/api/batch: the first failure rolls everything back and names its index', () => {
  const cases: [string, () => unknown[], 'admin' | 'anon', number, string, string][] = [
    [
      'a validation error',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'V' } },
        { method: 'POST', table: 'books', body: { title: 'Bad', pages: -1 } },
      ],
      'admin',
      400,
      'VALIDATION_FAILED',
      'operations[1]: ',
    ],
    [
      'an unknown column',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'U' } },
        { method: 'PATCH', table: 'authors', id: 'ann', body: { colour: 'red' } },
      ],
      'admin',
      400,
      'VALIDATION_UNKNOWN_COLUMN',
      'operations[1]: ',
    ],
    [
      'a unique violation found while writing',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'W', handle: 'fresh' } },
        { method: 'PATCH', table: 'notes', id: 'n-keep', body: { text: 'would change' } },
        { method: 'POST', table: 'authors', body: { name: 'X', handle: 'fresh' } },
      ],
      'admin',
      409,
      'CONFLICT_UNIQUE',
      'operations[2]: ',
    ],
    [
      'a missing row',
      () => [
        { method: 'DELETE', table: 'notes', id: 'n-keep' },
        { method: 'PATCH', table: 'books', id: 'no-such-book', body: { title: 'x' } },
      ],
      'admin',
      404,
      'ROW_NOT_FOUND',
      'operations[1]: ',
    ],
    [
      'a delete that a restricting reference refuses',
      () => [
        { method: 'DELETE', table: 'notes', id: 'n-keep' },
        { method: 'DELETE', table: 'authors', id: 'ann' },
      ],
      'admin',
      409,
      'CONFLICT_REFERENCE',
      'operations[1]: ',
    ],
    [
      'a reference to a missing row',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'R' } },
        { method: 'POST', table: 'books', body: { title: 'Orphan', author: 'nobody' } },
      ],
      'admin',
      409,
      'CONFLICT_REFERENCE',
      'operations[1]: ',
    ],
    [
      'a locked table for the publishable key',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'L' } },
        { method: 'POST', table: 'notes', body: { text: 'locked' } },
      ],
      'anon',
      403,
      'FORBIDDEN',
      'operations[1]: ',
    ],
    [
      'a new row the create rule refuses',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'C' } },
        { method: 'POST', table: 'books', body: { title: 'Long', pages: 5000 } },
      ],
      'anon',
      403,
      'FORBIDDEN',
      'operations[1]: ',
    ],
    [
      'a row outside the update rule',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'D' } },
        { method: 'PATCH', table: 'books', id: 'no-pages', body: { title: 'x' } },
      ],
      'anon',
      404,
      'ROW_NOT_FOUND',
      'operations[1]: ',
    ],
    [
      'a row outside the delete rule',
      () => [
        { method: 'POST', table: 'authors', body: { name: 'E' } },
        { method: 'DELETE', table: 'books', id: 'no-pages' },
      ],
      'anon',
      404,
      'ROW_NOT_FOUND',
      'operations[1]: ',
    ],
  ];
  before(async () => {
    await create('notes', { id: 'n-keep', text: 'kept' });
    await create('books', { id: 'no-pages', title: 'No pages', pages: 0, author: 'ann' });
  });
  for (const [label, operations, caller, status, code, where] of cases) {
    it(`${label} → ${status} ${code} naming ${where.trim()}; nothing written`, async () => {
      const before = await snapshot();
      const response = await batch(operations(), project[caller]);
      assertError(response, status, code);
      assertMessageIncludes(response, where);
      assert.deepEqual(await snapshot(), before);
    });
  }
});

describe('POST /p/{id}/api/batch: bad input → a catalogue code, nothing written', () => {
  const post = { method: 'POST', table: 'authors', body: { name: 'never' } };
  const cases: [string, unknown, number, string, string | undefined][] = [
    ['1,001 operations', { operations: Array.from({ length: 1001 }, () => post) }, 400, 'VALIDATION_FAILED', '1001'],
    ['no operations', { operations: [] }, 400, 'VALIDATION_FAILED', undefined],
    ['a body without operations', { ops: [post] }, 400, 'VALIDATION_FAILED', undefined],
    ['an array body', [post], 400, 'VALIDATION_FAILED', undefined],
    ['an extra field', { operations: [post], atomic: false }, 400, 'VALIDATION_FAILED', 'atomic'],
    ['an operation that is not an object', { operations: [post, 'x'] }, 400, 'VALIDATION_FAILED', 'operations[1]'],
    [
      'an unknown method',
      { operations: [post, { method: 'PUT', table: 'authors', id: 'ann', body: {} }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'a lower-case method',
      { operations: [{ method: 'post', table: 'authors', body: {} }] },
      400,
      'VALIDATION_FAILED',
      'operations[0]',
    ],
    [
      'an unknown table',
      { operations: [post, { method: 'POST', table: 'nope', body: {} }] },
      404,
      'TABLE_NOT_FOUND',
      'operations[1]',
    ],
    [
      'a nested batch (table "batch")',
      { operations: [post, { method: 'POST', table: 'batch', body: { operations: [post] } }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'a nested batch (an operation holding operations)',
      { operations: [post, { operations: [post] }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'PATCH without id',
      { operations: [post, { method: 'PATCH', table: 'authors', body: { name: 'x' } }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'DELETE without id',
      { operations: [post, { method: 'DELETE', table: 'authors' }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'an id on POST',
      { operations: [post, { method: 'POST', table: 'authors', id: 'x', body: { name: 'x' } }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'a body on DELETE',
      { operations: [post, { method: 'DELETE', table: 'authors', id: 'ann', body: {} }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'a POST without body',
      { operations: [post, { method: 'POST', table: 'authors' }] },
      400,
      'VALIDATION_FAILED',
      'operations[1]',
    ],
    [
      'an unknown operation field',
      { operations: [{ ...post, if_match: 'x' }] },
      400,
      'VALIDATION_FAILED',
      'operations[0]',
    ],
  ];
  for (const [label, body, status, code, where] of cases) {
    it(`${label} → ${status} ${code}`, async () => {
      const before = await snapshot();
      const response = await server.request('POST', `/p/${project.id}/api/batch`, { headers: project.admin, body });
      assertError(response, status, code);
      if (where) assertMessageIncludes(response, where);
      assert.deepEqual(await snapshot(), before);
    });
  }

  it('malformed JSON → 400 INVALID_JSON', async () => {
    const response = await server.request('POST', `/p/${project.id}/api/batch`, {
      headers: { ...project.admin, 'content-type': 'application/json' },
      rawBody: '{"operations": [',
    });
    assertError(response, 400, 'INVALID_JSON');
  });
});

describe('POST /p/{id}/api/batch: body size', () => {
  it('takes bodies over 1 MiB (up to 16 MiB, as /bulk does)', async () => {
    const name = 'x'.repeat(2_000);
    const operations = Array.from({ length: 1_000 }, () => ({ method: 'POST', table: 'notes', body: { text: name } }));
    const response = await batch(operations);
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.equal(response.body.data.length, 1_000);
  });

  it('a declared size over 16 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await server.request('POST', `/p/${project.id}/api/batch`, {
      headers: { ...project.admin, 'content-type': 'application/json' },
      rawBody: JSON.stringify({
        operations: [{ method: 'POST', table: 'notes', body: { text: 'x'.repeat(17 * 1024 * 1024) } }],
      }),
    });
    assertError(response, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('POST /p/{id}/api/batch: callers', () => {
  const ops = [{ method: 'POST', table: 'authors', body: { name: 'caller' } }];
  const cases: [string, () => Record<string, string>, number, string][] = [
    ['no credentials', () => ({}), 401, 'AUTH_REQUIRED'],
    ['a wrong admin key', () => ({ 'x-admin-key': `sk_${'Z'.repeat(40)}` }), 401, 'AUTH_INVALID_KEY'],
    ["another project's admin key", () => other.admin, 401, 'AUTH_INVALID_KEY'],
    ['an invalid bearer token', () => ({ authorization: 'Bearer not.a.token' }), 401, 'AUTH_INVALID_TOKEN'],
  ];
  for (const [label, headers, status, code] of cases) {
    it(`${label} → ${status} ${code}`, async () => {
      assertError(await batch(ops, headers()), status, code);
    });
  }

  it('an unknown project → 404 PROJECT_NOT_FOUND', async () => {
    const response = await server.request('POST', '/p/no-such-project/api/batch', {
      headers: project.admin,
      body: { operations: ops },
    });
    assertError(response, 404, 'PROJECT_NOT_FOUND');
  });
});

describe('POST /p/{id}/api/batch: realtime', () => {
  let stream: SseStream;
  before(async () => {
    stream = await openStream(server.url, project.id);
    streams.push(stream);
    const response = await server.request('POST', `/p/${project.id}/realtime`, {
      headers: project.admin,
      body: { client_id: stream.clientId, subscriptions: ['authors', 'books', 'notes'] },
    });
    assert.equal(response.status, 200, response.text);
  });

  it('a committed batch sends every operation’s event, in order; a rolled-back one sends none', async () => {
    const note = await create('notes', { text: 'rt' });
    await stream.waitFor(1, (e) => e.json.record?.id === note.id);
    const failed = await batch([
      { method: 'POST', table: 'authors', body: { name: 'rt-rolled-back' } },
      { method: 'DELETE', table: 'notes', id: note.id },
      { method: 'PATCH', table: 'books', id: 'no-such-book', body: { title: 'x' } },
    ]);
    assertError(failed, 404, 'ROW_NOT_FOUND');
    const done = await batch([
      { method: 'POST', table: 'authors', body: { id: 'rt-author', name: 'rt-committed' } },
      { method: 'POST', table: 'books', body: { id: 'rt-book', title: 'rt', pages: 1, author: 'rt-author' } },
      { method: 'PATCH', table: 'notes', id: note.id, body: { text: 'rt changed' } },
      { method: 'DELETE', table: 'books', id: 'rt-book' },
    ]);
    assert.equal(done.status, 200, done.text);
    const marker = await create('notes', { text: 'rt marker' });
    const seen = await stream.before((e) => e.json.record?.id === marker.id);
    const after = seen.slice(seen.findIndex((e) => e.json.record?.id === note.id) + 1);
    assert.deepEqual(
      after.map((e) => [e.event, e.json.action, e.json.record.id]),
      [
        ['authors', 'create', 'rt-author'],
        ['books', 'create', 'rt-book'],
        ['notes', 'update', note.id],
        ['books', 'delete', 'rt-book'],
      ],
      'the committed batch’s four events, and nothing of the rolled-back one',
    );
  });
});

describe('the table name "batch"', () => {
  it('a new table named batch → 400 VALIDATION_FAILED with a suggestion', async () => {
    const response = await server.request('PUT', `/p/${project.id}/v1/tables/batch`, {
      headers: project.admin,
      body: { columns: [{ name: 'name', type: 'text' }] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'reserved');
  });

  it('GET /api/batch is still the list of a table named batch (none here: 404 TABLE_NOT_FOUND)', async () => {
    assertError(
      await server.request('GET', `/p/${project.id}/api/batch`, { headers: project.admin }),
      404,
      'TABLE_NOT_FOUND',
    );
  });

  it('the project document describes POST /api/batch', async () => {
    const response = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.paths['/api/batch'].post.operationId, 'batch');
    // The publishable key's document offers only the writes its rules allow: none on the locked "notes".
    const pub = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.anon });
    assert.equal(pub.status, 200, pub.text);
    const schema = pub.body.paths['/api/batch'].post.requestBody.content['application/json'].schema;
    const offered = schema.properties.operations.items.anyOf.map(
      (o: any) => `${o.properties.method.const} ${o.properties.table.const}`,
    );
    assert.deepEqual(offered.sort(), [
      'DELETE authors',
      'DELETE books',
      'PATCH authors',
      'PATCH books',
      'POST authors',
      'POST books',
    ]);
  });
});

describe('POST /p/{id}/api/batch: an auth table', () => {
  let users: TestProject;
  const batchOn = (headers: Record<string, string>, operations: unknown[]) =>
    server.request('POST', `/p/${users.id}/api/batch`, { headers, body: { operations } });
  before(async () => {
    users = await createAuthProject(server);
  });

  it('the admin key creates a user with a password: hashed, never answered, and it signs in', async () => {
    const response = await batchOn(users.admin, [
      { method: 'POST', table: 'users', body: { email: 'Made@Example.com', password: PASSWORD, name: 'Made' } },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data[0].body.data.email, 'made@example.com');
    assert.ok(!('password' in response.body.data[0].body.data));
    const login = await server.request('POST', `/p/${users.id}/auth/login`, {
      body: { email: 'made@example.com', password: PASSWORD },
    });
    assert.equal(login.status, 200, login.text);
  });

  it('a user changes their own row, not their email nor another user’s row', async () => {
    const ada = await signUp(server, users, 'ada@example.com');
    const bob = await signUp(server, users, 'bob@example.com');
    const own = await batchOn(bearer(ada.token), [
      { method: 'PATCH', table: 'users', id: ada.user.id, body: { name: 'Ada' } },
    ]);
    assert.equal(own.status, 200, own.text);
    const email = await batchOn(bearer(ada.token), [
      { method: 'PATCH', table: 'users', id: ada.user.id, body: { name: 'A' } },
      { method: 'PATCH', table: 'users', id: ada.user.id, body: { email: 'new@example.com' } },
    ]);
    assertError(email, 403, 'FORBIDDEN');
    assertMessageIncludes(email, 'operations[1]: ');
    const other = await batchOn(bearer(ada.token), [
      { method: 'PATCH', table: 'users', id: bob.user.id, body: { name: 'not Bob' } },
    ]);
    assertError(other, 404, 'ROW_NOT_FOUND');
    const created = await batchOn(bearer(ada.token), [
      { method: 'POST', table: 'users', body: { email: 'x@example.com', password: PASSWORD } },
    ]);
    assertError(created, 403, 'FORBIDDEN');
    const me = await server.request('GET', `/p/${users.id}/api/users/${ada.user.id}`, { headers: users.admin });
    assert.equal(me.body.data.name, 'Ada', 'the refused batch changed nothing');
  });

  it('deleting a user in a batch ends their sessions, as the single delete does', async () => {
    const carl = await signUp(server, users, 'carl@example.com');
    const response = await batchOn(users.admin, [{ method: 'DELETE', table: 'users', id: carl.user.id }]);
    assert.equal(response.status, 200, response.text);
    const refresh = await server.request('POST', `/p/${users.id}/auth/refresh`, {
      body: { refresh_token: carl.refresh_token },
    });
    assertError(refresh, 401, 'AUTH_INVALID_REFRESH_TOKEN');
  });
});
