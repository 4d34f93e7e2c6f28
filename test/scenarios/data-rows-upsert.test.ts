/**
 * Upsert (contract §18): POST /api/{table}?on_conflict=<unique column> and /bulk. 201 for an
 * insert, 200 for an update (/bulk: 200); the create rule judges inserts, the update rule
 * updates; a row the caller may not update answers exactly as a plain insert that collides;
 * a column that is not unique: 400 VALIDATION_FAILED; bulk is all or nothing; realtime sends
 * a create or an update event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { bearer, PASSWORD } from '../helpers/auth-fixtures.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
let alice: Record<string, string>;
let bob: Record<string, string>;
let aliceId: string;
let bobId: string;
const streams: SseStream[] = [];

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  server.request('POST', `/p/${project.id}/api/${path}`, { headers, body });
const upsert = (table: string, column: string, headers: Record<string, string>, body: unknown) =>
  post(`${table}?on_conflict=${encodeURIComponent(column)}`, headers, body);
const bulkUpsert = (table: string, column: string, headers: Record<string, string>, body: unknown) =>
  post(`${table}/bulk?on_conflict=${encodeURIComponent(column)}`, headers, body);
const rowsOf = async (table: string) =>
  (await server.request('GET', `/p/${project.id}/api/${table}?sort=created_at&limit=1000`, { headers: project.admin }))
    .body.data as Record<string, unknown>[];

before(async () => {
  server = await startTestServer();
  project = await createProject(server);
  await putTable(server, project, 'users', { columns: [{ name: 'name', type: 'text' }], auth_table: true });
  await putTable(server, project, 'items', {
    columns: [
      { name: 'sku', type: 'text', unique: true },
      { name: 'code', type: 'integer', unique: true },
      { name: 'name', type: 'text', required: true },
      { name: 'qty', type: 'integer', default: 0, min: 0 },
      { name: 'colour', type: 'text' },
    ],
    rules: { list: '', view: '', create: '', update: '', delete: null },
  });
  // Each user creates and updates only their own notes, and sees only them.
  const own = 'owner = @request.auth.id';
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'slug', type: 'text', unique: true },
      { name: 'owner', type: 'text' },
      { name: 'body', type: 'text' },
    ],
    rules: { list: own, view: own, create: `@request.auth.id != "" && ${own}`, update: own, delete: null },
  });
  // Updated only by the user the row's author column points at: a rule through a relation path.
  await putTable(server, project, 'docs', {
    columns: [
      { name: 'slug', type: 'text', unique: true },
      { name: 'author', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      { name: 'body', type: 'text' },
    ],
    rules: { list: '', view: '', create: '', update: 'author.email = @request.auth.email', delete: null },
  });
  // An update rule that reads the body: each row is judged with its own values.
  await putTable(server, project, 'tags', {
    columns: [
      { name: 'label', type: 'text', unique: true },
      { name: 'note', type: 'text' },
    ],
    rules: { list: '', view: '', create: '', update: '@request.body.note != "frozen"', delete: null },
  });
  // A table named like the row an upsert could not insert (PostgreSQL's `excluded`).
  await putTable(server, project, 'excluded', {
    columns: [{ name: 'label', type: 'text', unique: true }],
    rules: { list: '', view: '', create: '', update: 'label != "x"', delete: null },
  });
  // Anyone may create; no one but the admin key may update.
  await putTable(server, project, 'logs', {
    columns: [
      { name: 'key', type: 'text', unique: true },
      { name: 'line', type: 'text' },
    ],
    rules: { list: '', view: '', create: '', update: null, delete: null },
  });
  const signUpAs = async (email: string) => {
    const response = await server.request('POST', `/p/${project.id}/auth/signup`, {
      body: { email, password: PASSWORD },
    });
    assert.equal(response.status, 201, response.text);
    return response.body as { token: string; user: { id: string } };
  };
  const a = await signUpAs('alice@example.com');
  const b = await signUpAs('bob@example.com');
  alice = bearer(a.token);
  aliceId = a.user.id;
  bob = bearer(b.token);
  bobId = b.user.id;
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

describe('POST /p/{id}/api/{table}?on_conflict=<column>', () => {
  it('a new value inserts → 201 {data: row}, defaults applied', async () => {
    const response = await upsert('items', 'sku', project.anon, { sku: 'ins-1', name: 'first' });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.sku, 'ins-1');
    assert.equal(response.body.data.qty, 0);
    assert.equal(response.body.data.colour, null);
  });

  it('a taken value updates that row → 200, only the columns sent change', async () => {
    const created = (await upsert('items', 'sku', project.anon, { sku: 'upd-1', name: 'old', qty: 3, colour: 'red' }))
      .body.data;
    const response = await upsert('items', 'sku', project.anon, { sku: 'upd-1', name: 'new' });
    assert.equal(response.status, 200, response.text);
    const row = response.body.data;
    assert.equal(row.id, created.id);
    assert.equal(row.created_at, created.created_at);
    assert.equal(row.name, 'new');
    assert.equal(row.qty, 3, 'a column not sent keeps its value (no default written over it)');
    assert.equal(row.colour, 'red');
    const stored = await server.request('GET', `/p/${project.id}/api/items/${created.id}`, { headers: project.admin });
    assert.deepEqual(stored.body.data, row);
    assert.equal((await rowsOf('items')).filter((r) => r.sku === 'upd-1').length, 1);
  });

  it('an id sent with a taken value does not change the existing row id', async () => {
    const created = (await upsert('items', 'sku', project.admin, { sku: 'ids-1', name: 'a' })).body.data;
    const response = await upsert('items', 'sku', project.admin, { id: 'another-id', sku: 'ids-1', name: 'b' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.id, created.id);
  });

  it('on_conflict=id: a new id inserts (201), the same id again updates (200)', async () => {
    const first = await upsert('items', 'id', project.anon, { id: 'item-by-id', name: 'one' });
    assert.equal(first.status, 201, first.text);
    const second = await upsert('items', 'id', project.anon, { id: 'item-by-id', name: 'two', qty: 9 });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.data.name, 'two');
    assert.equal(second.body.data.qty, 9);
    assert.equal(second.body.data.created_at, first.body.data.created_at);
  });

  it('a body without the conflict column inserts', async () => {
    const response = await upsert('items', 'sku', project.anon, { name: 'no sku' });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.sku, null);
  });

  it('an integer unique column works as the target', async () => {
    assert.equal((await upsert('items', 'code', project.anon, { code: 41, name: 'x' })).status, 201);
    const response = await upsert('items', 'code', project.anon, { code: 41, name: 'y' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.name, 'y');
  });

  it('a value taken in another unique column → 409 CONFLICT_UNIQUE naming it, nothing written', async () => {
    await upsert('items', 'sku', project.anon, { sku: 'other-1', code: 77, name: 'holder' });
    const before = await rowsOf('items');
    const response = await upsert('items', 'sku', project.anon, { sku: 'other-2', code: 77, name: 'clash' });
    assertError(response, 409, 'CONFLICT_UNIQUE');
    assertMessageIncludes(response, 'code');
    assert.deepEqual(await rowsOf('items'), before);
  });

  describe('the conflict column must be unique → 400 VALIDATION_FAILED, nothing written', () => {
    const cases: [string, string][] = [
      ['a column that is not unique', 'on_conflict=name'],
      ['an unknown column', 'on_conflict=nope'],
      ['a system column that is not unique', 'on_conflict=created_at'],
      ['an empty value', 'on_conflict='],
      ['the parameter twice', 'on_conflict=sku&on_conflict=code'],
    ];
    for (const [label, query] of cases) {
      for (const bulk of [false, true]) {
        it(`${label}${bulk ? ' (bulk)' : ''}`, async () => {
          const before = await rowsOf('items');
          const row = { sku: 'never-written', name: 'x' };
          const response = await post(`items${bulk ? '/bulk' : ''}?${query}`, project.anon, bulk ? [row] : row);
          assertError(response, 400, 'VALIDATION_FAILED');
          assertMessageIncludes(response, 'on_conflict');
          assert.deepEqual(await rowsOf('items'), before);
        });
      }
    }
  });

  it('a table named "excluded" upserts like any other', async () => {
    assert.equal((await upsert('excluded', 'label', project.anon, { label: 'e' })).status, 201);
    assert.equal((await upsert('excluded', 'label', project.anon, { label: 'e' })).status, 200);
    const rows = [{ label: 'e' }, { label: 'f' }];
    assert.equal((await bulkUpsert('excluded', 'label', project.anon, rows)).status, 200);
  });

  it('the auth table has no upserts → 400 VALIDATION_FAILED (admin key)', async () => {
    const response = await upsert('users', 'id', project.admin, { email: 'carol@example.com', password: PASSWORD });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'auth table');
  });

  it('the auth table for a user → 403 FORBIDDEN, as any create there', async () => {
    assertError(await upsert('users', 'email', alice, { email: 'x@example.com' }), 403, 'FORBIDDEN');
  });

  it('the body is validated as a create → 400 VALIDATION_FAILED for a missing required column', async () => {
    assertError(await upsert('items', 'sku', project.anon, { sku: 'no-name' }), 400, 'VALIDATION_FAILED');
  });
});

describe('rules', () => {
  it("another user's row: the same answer as a plain insert, and the row is unchanged", async () => {
    const mine = await upsert('notes', 'slug', alice, { slug: 'alice-1', owner: aliceId, body: 'mine' });
    assert.equal(mine.status, 201, mine.text);
    const plain = await post('notes', bob, { slug: 'alice-1', owner: bobId, body: 'taken?' });
    const upserted = await upsert('notes', 'slug', bob, { slug: 'alice-1', owner: bobId, body: 'stolen' });
    assertError(plain, 409, 'CONFLICT_UNIQUE');
    assertError(upserted, 409, 'CONFLICT_UNIQUE');
    assert.deepEqual(upserted.body, plain.body, 'the upsert tells no more than the insert');
    const stored = await server.request('GET', `/p/${project.id}/api/notes/${mine.body.data.id}`, { headers: alice });
    assert.equal(stored.body.data.body, 'mine');
    assert.equal(stored.body.data.owner, aliceId);
  });

  it('the owner updates their own row → 200', async () => {
    await upsert('notes', 'slug', alice, { slug: 'alice-2', owner: aliceId, body: 'v1' });
    const response = await upsert('notes', 'slug', alice, { slug: 'alice-2', owner: aliceId, body: 'v2' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.body, 'v2');
  });

  it('an update rule through a relation path is judged on the existing row', async () => {
    assert.equal((await upsert('docs', 'slug', alice, { slug: 'd1', author: aliceId, body: 'v1' })).status, 201);
    assertError(await upsert('docs', 'slug', bob, { slug: 'd1', body: 'bob' }), 409, 'CONFLICT_UNIQUE');
    const response = await upsert('docs', 'slug', alice, { slug: 'd1', body: 'v2' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.body, 'v2');
  });

  it('an insert the create rule refuses → 403 FORBIDDEN, nothing written', async () => {
    const before = await rowsOf('notes');
    const response = await upsert('notes', 'slug', bob, { slug: 'bob-for-alice', owner: aliceId });
    assertError(response, 403, 'FORBIDDEN');
    assert.deepEqual(await rowsOf('notes'), before);
  });

  it('anonymous (pk key) on a create rule needing a user → 403 FORBIDDEN', async () => {
    assertError(await upsert('notes', 'slug', project.anon, { slug: 'anon', owner: '' }), 403, 'FORBIDDEN');
  });

  it('a locked update rule: new values insert (201), taken ones answer 409 CONFLICT_UNIQUE', async () => {
    assert.equal((await upsert('logs', 'key', project.anon, { key: 'k1', line: 'one' })).status, 201);
    const response = await upsert('logs', 'key', project.anon, { key: 'k1', line: 'two' });
    assertError(response, 409, 'CONFLICT_UNIQUE');
    assert.deepEqual(
      (await rowsOf('logs')).map((r) => r.line),
      ['one'],
    );
  });

  it('the admin key updates under any rule → 200', async () => {
    const response = await upsert('logs', 'key', project.admin, { key: 'k1', line: 'admin' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.line, 'admin');
  });

  it('no credentials → 401 AUTH_REQUIRED', async () => {
    assertError(await upsert('items', 'sku', {}, { sku: 'x', name: 'x' }), 401, 'AUTH_REQUIRED');
  });
});

describe('POST /p/{id}/api/{table}/bulk?on_conflict=<column>', () => {
  it('inserts and updates in one request → 200 {data: [rows]} in the order sent', async () => {
    await upsert('items', 'sku', project.anon, { sku: 'bulk-a', name: 'a', qty: 1 });
    const response = await bulkUpsert('items', 'sku', project.anon, [
      { sku: 'bulk-a', name: 'a2' },
      { sku: 'bulk-b', name: 'b' },
      { sku: 'bulk-b', name: 'b2', qty: 5 },
    ]);
    assert.equal(response.status, 200, response.text);
    const data = response.body.data;
    assert.deepEqual(
      data.map((r: { sku: string; name: string; qty: number }) => [r.sku, r.name, r.qty]),
      [
        ['bulk-a', 'a2', 1],
        ['bulk-b', 'b', 0],
        ['bulk-b', 'b2', 5],
      ],
    );
    assert.equal(data[1].id, data[2].id, 'a later row updates the row an earlier one inserted');
  });

  it('300 rows, every other one taken: each answered in order, inserted or updated', async () => {
    const taken = Array.from({ length: 150 }, (_, n) => ({ sku: `many-${2 * n}`, name: 'before', qty: n }));
    assert.equal((await bulkUpsert('items', 'sku', project.anon, taken)).status, 200);
    const before = new Map((await rowsOf('items')).map((r) => [r.sku, r]));
    const rows = Array.from({ length: 300 }, (_, n) => ({ sku: `many-${n}`, name: `after ${n}` }));
    const response = await bulkUpsert('items', 'sku', project.anon, rows);
    assert.equal(response.status, 200, response.text);
    const data = response.body.data as Record<string, unknown>[];
    assert.deepEqual(
      data.map((r) => [r.sku, r.name]),
      rows.map((r) => [r.sku, r.name]),
    );
    for (const [n, row] of data.entries()) {
      const old = before.get(`many-${n}`);
      if (n % 2 === 0) {
        assert.equal(row.id, old!.id, `row ${n} updates the row that held its sku`);
        assert.equal(row.qty, old!.qty, `row ${n} keeps the columns it did not send`);
      } else {
        assert.equal(old, undefined);
        assert.equal(row.qty, 0, `row ${n} is inserted with the defaults`);
      }
    }
  });

  it('an insert the create rule refuses among others → 403 FORBIDDEN naming it, nothing written', async () => {
    const before = await rowsOf('notes');
    const rows = Array.from({ length: 20 }, (_, n) => ({ slug: `bob-many-${n}`, owner: n === 13 ? aliceId : bobId }));
    const response = await bulkUpsert('notes', 'slug', bob, rows);
    assertError(response, 403, 'FORBIDDEN');
    assertMessageIncludes(response, 'row 13');
    assert.deepEqual(await rowsOf('notes'), before);
  });

  it('an update rule reading @request.body judges each row with its own body', async () => {
    assert.equal((await bulkUpsert('tags', 'label', project.anon, [{ label: 'a' }, { label: 'b' }])).status, 200);
    const refused = await bulkUpsert('tags', 'label', project.anon, [
      { label: 'a', note: 'fine' },
      { label: 'b', note: 'frozen' },
    ]);
    assertError(refused, 409, 'CONFLICT_UNIQUE');
    assertMessageIncludes(refused, 'row 1');
    const allowed = await bulkUpsert('tags', 'label', project.anon, [
      { label: 'a', note: 'fine' },
      { label: 'c', note: 'frozen' },
    ]);
    assert.equal(allowed.status, 200, allowed.text);
    assert.deepEqual(
      (await rowsOf('tags')).map((r) => [r.label, r.note]),
      [
        ['a', 'fine'],
        ['b', null],
        ['c', 'frozen'],
      ],
    );
  });

  it('a bulk of inserts only answers 200 as well', async () => {
    const response = await bulkUpsert('items', 'sku', project.anon, [{ sku: 'bulk-new', name: 'n' }]);
    assert.equal(response.status, 200, response.text);
  });

  describe('one failing row → its error names it and nothing is written (not even the updates before it)', () => {
    const cases: [string, () => unknown[], number, string, string][] = [
      [
        'a missing required column',
        () => [{ sku: 'atom-a', name: 'changed' }, { sku: 'atom-new' }],
        400,
        'VALIDATION_FAILED',
        'row 1',
      ],
      [
        'a taken value in another unique column',
        () => [
          { sku: 'atom-a', name: 'changed' },
          { sku: 'atom-c', name: 'c', code: 9001 },
        ],
        409,
        'CONFLICT_UNIQUE',
        'row 1',
      ],
    ];
    before(async () => {
      await upsert('items', 'sku', project.admin, { sku: 'atom-a', name: 'original' });
      await upsert('items', 'sku', project.admin, { sku: 'atom-b', name: 'holds 9001', code: 9001 });
    });
    for (const [label, rows, status, code, where] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = await rowsOf('items');
        const response = await bulkUpsert('items', 'sku', project.anon, rows());
        assertError(response, status, code);
        assertMessageIncludes(response, where);
        assert.deepEqual(await rowsOf('items'), before);
      });
    }

    it("a row the caller may not update → 409 CONFLICT_UNIQUE naming it; the other user's row unchanged", async () => {
      await upsert('notes', 'slug', alice, { slug: 'alice-bulk', owner: aliceId, body: 'kept' });
      const before = await rowsOf('notes');
      const response = await bulkUpsert('notes', 'slug', bob, [
        { slug: 'bob-bulk', owner: bobId },
        { slug: 'alice-bulk', owner: bobId, body: 'stolen' },
      ]);
      assertError(response, 409, 'CONFLICT_UNIQUE');
      assertMessageIncludes(response, 'row 1');
      assert.deepEqual(await rowsOf('notes'), before);
    });
  });
});

describe('realtime', () => {
  it('an insert sends a create event, an update an update event', async () => {
    const stream = await openStream(server.url, project.id);
    streams.push(stream);
    const subscribed = await server.request('POST', `/p/${project.id}/realtime`, {
      headers: project.anon,
      body: { client_id: stream.clientId, subscriptions: ['items'] },
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    const inserted = (await upsert('items', 'sku', project.anon, { sku: 'rt-1', name: 'one' })).body.data;
    await upsert('items', 'sku', project.anon, { sku: 'rt-1', name: 'two' });
    await bulkUpsert('items', 'sku', project.anon, [
      { sku: 'rt-1', name: 'three' },
      { sku: 'rt-2', name: 'new' },
      { sku: 'rt-2', name: 'newer' },
    ]);
    const events = await stream.waitFor(5, (e) => e.event === 'items');
    assert.deepEqual(
      events.map((e) => [e.json.action, e.json.record.sku, e.json.record.name]),
      [
        ['create', 'rt-1', 'one'],
        ['update', 'rt-1', 'two'],
        ['update', 'rt-1', 'three'],
        ['create', 'rt-2', 'new'],
        ['update', 'rt-2', 'newer'],
      ],
    );
    assert.equal(events[1]!.json.record.id, inserted.id);
  });

  it('rows that send their own ids: the existing row id sent again updates, a new id inserts', async () => {
    const stream = await openStream(server.url, project.id);
    streams.push(stream);
    const subscribed = await server.request('POST', `/p/${project.id}/realtime`, {
      headers: project.anon,
      body: { client_id: stream.clientId, subscriptions: ['items'] },
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    const existing = (await upsert('items', 'sku', project.admin, { sku: 'own-1', name: 'one' })).body.data;
    const response = await bulkUpsert('items', 'sku', project.admin, [
      { id: existing.id, sku: 'own-1', name: 'two' },
      { id: 'own-2-id', sku: 'own-2', name: 'new' },
      { id: 'own-2-id', sku: 'own-2', name: 'newer' },
      { sku: 'own-3', name: 'made an id' },
    ]);
    assert.equal(response.status, 200, response.text);
    const events = await stream.waitFor(5, (e) => e.event === 'items');
    assert.deepEqual(
      events.map((e) => [e.json.action, e.json.record.sku, e.json.record.name]),
      [
        ['create', 'own-1', 'one'],
        ['update', 'own-1', 'two'],
        ['create', 'own-2', 'new'],
        ['update', 'own-2', 'newer'],
        ['create', 'own-3', 'made an id'],
      ],
    );
    assert.equal(events[1]!.json.record.id, existing.id);
    assert.equal(events[3]!.json.record.id, 'own-2-id');
  });
});
