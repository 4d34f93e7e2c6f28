/**
 * The data API's single-row operations (contract §6): every column type round-tripping,
 * create/get/patch/delete, validation, unique and foreign-key conflicts, with the admin key.
 * Bulk creation and body limits are in data-rows-bulk.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import {
  createProject,
  putTable,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MAX = Number.MAX_SAFE_INTEGER;

describe('data API writes', () => {
  let server: TestServer;
  let project: TestProject;
  const clock = new TestClock(Date.parse('2026-03-01T10:00:00.000Z'));
  const api = (path = '') => `/p/${project.id}/api/things${path}`;
  const post = (body: unknown, table = 'things') =>
    server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
  const patch = (id: string, body: unknown) => server.request('PATCH', api(`/${id}`), { headers: project.admin, body });
  const get = (id: string) => server.request('GET', api(`/${id}`), { headers: project.admin });

  before(async () => {
    server = await startTestServer({}, { clock });
    project = await createProject(server, 'write-rows');
    await putTable(server, project, 'things', {
      columns: [
        { name: 'title', type: 'text', required: true, max_length: 20 },
        { name: 'body', type: 'text' },
        { name: 'status', type: 'text', enum: ['open', 'closed'] },
        { name: 'code', type: 'text', unique: true },
        { name: 'n', type: 'integer' },
        { name: 'rating', type: 'integer', min: 1, max: 5 },
        { name: 'x', type: 'number' },
        { name: 'ratio', type: 'number', min: 0, max: 1 },
        { name: 'flag', type: 'boolean' },
        { name: 'at', type: 'timestamp' },
        { name: 'doc', type: 'json' },
      ],
    });
    await putTable(server, project, 'links', {
      columns: [{ name: 'thing', type: 'text', references: { table: 'things', on_delete: 'restrict' } }],
    });
  });
  after(() => server.close());

  describe('round trips of every column type', () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>?][] = [
      ['text: plain and empty', { body: '' }],
      ['text: unicode (emoji, CJK, RTL, combining marks)', { body: '🦀 日本語 עברית é ñ 𝄞 \u200d' }],
      [
        'text: quotes, backslashes, newlines and SQL',
        { body: `it's "quoted" \\ back\nslash'); DROP TABLE things; --` },
      ],
      ['integer: zero and negatives', { n: -42 }],
      ['integer: 2^53−1', { n: MAX }],
      ['integer: −(2^53−1)', { n: -MAX }],
      ['integer: 1.0 is a whole number', { n: 1.0 }, { n: 1 }],
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: any fraction will do; this is not π
      ['number: fractions', { x: 3.14159 }],
      ['number: large and small', { x: 1.5e300 }],
      ['number: tiny', { x: -2.5e-300 }],
      ['number: a whole number', { x: 7 }],
      ['boolean: true', { flag: true }],
      ['boolean: false', { flag: false }],
      ['timestamp: UTC with Z', { at: '2026-01-31T09:30:00Z' }, { at: '2026-01-31T09:30:00.000Z' }],
      [
        'timestamp: milliseconds and an offset',
        { at: '2026-01-31T09:30:00.123+02:00' },
        { at: '2026-01-31T07:30:00.123Z' },
      ],
      [
        'timestamp: negative offset without colon',
        { at: '2026-01-31T22:00:00-0530' },
        { at: '2026-02-01T03:30:00.000Z' },
      ],
      ['timestamp: a date only', { at: '2026-01-31' }, { at: '2026-01-31T00:00:00.000Z' }],
      ['timestamp: no zone means UTC', { at: '2026-01-31T09:30:00' }, { at: '2026-01-31T09:30:00.000Z' }],
      ['timestamp: minutes only', { at: '2026-01-31T09:30Z' }, { at: '2026-01-31T09:30:00.000Z' }],
      ['timestamp: a space and lower-case z', { at: '2026-01-31 09:30:00z' }, { at: '2026-01-31T09:30:00.000Z' }],
      ['timestamp: leap day', { at: '2024-02-29T12:00:00Z' }, { at: '2024-02-29T12:00:00.000Z' }],
      ['json: object', { doc: { a: 1, b: [true, null, 'x'], c: { d: {} } } }],
      ['json: array', { doc: [1, 'two', { three: 3 }, [], null] }],
      ['json: string', { doc: 'just a string' }],
      ['json: number', { doc: 12.5 }],
      ['json: true', { doc: true }],
      ['json: false', { doc: false }],
      ['json: null', { doc: null }],
      ['json: unicode keys and values', { doc: { ключ: '値 🦀', '': 'empty key' } }],
      ['json: a big integer inside', { doc: { big: MAX } }],
      [
        'all nullable columns null',
        { body: null, status: null, code: null, n: null, rating: null, x: null, ratio: null, flag: null, at: null },
      ],
    ];
    for (const [label, values, expected] of cases) {
      it(label, async () => {
        const created = await post({ title: 't', ...values });
        assert.equal(created.status, 201, created.text);
        const want = { title: 't', ...(expected ?? values) };
        for (const [key, value] of Object.entries(want))
          assert.deepEqual(created.body.data[key], value, `${key} in the POST response`);
        const fetched = await get(created.body.data.id);
        assert.equal(fetched.status, 200);
        assert.deepEqual(fetched.body.data, created.body.data, 'GET returns what POST returned');
      });
    }
    it('a row has every column, null when not given', async () => {
      const created = await post({ title: 'sparse' });
      assert.deepEqual(Object.keys(created.body.data).sort(), [
        'at',
        'body',
        'code',
        'created_at',
        'doc',
        'flag',
        'id',
        'n',
        'rating',
        'ratio',
        'status',
        'title',
        'updated_at',
        'x',
      ]);
      for (const key of ['body', 'n', 'x', 'flag', 'at', 'doc']) assert.equal(created.body.data[key], null, key);
    });
  });

  describe('create, get, patch, delete', () => {
    it('POST → 201 with a generated UUIDv7 id and server timestamps', async () => {
      const created = await post({ title: 'first' });
      assert.equal(created.status, 201);
      assert.match(created.body.data.id, UUID_V7);
      assert.equal(created.body.data.created_at, '2026-03-01T10:00:00.000Z');
      assert.equal(created.body.data.updated_at, created.body.data.created_at);
    });

    it('POST with a given id keeps it; the same id again → 409 CONFLICT_UNIQUE', async () => {
      const created = await post({ id: 'my-own_id-1', title: 'mine' });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.id, 'my-own_id-1');
      assert.equal((await get('my-own_id-1')).body.data.title, 'mine');
      assertError(await post({ id: 'my-own_id-1', title: 'again' }), 409, 'CONFLICT_UNIQUE');
    });

    for (const id of ['', 'has space', 'a/b', 'x'.repeat(65), 'ünïcode', 42]) {
      it(`POST with id ${JSON.stringify(id).slice(0, 20)} → 400 VALIDATION_FAILED`, async () => {
        const response = await post({ id, title: 'bad id' });
        assertError(response, 400, 'VALIDATION_FAILED');
        assertMessageIncludes(response, 'id');
      });
    }

    it('PATCH → 200 changes only the given columns and moves updated_at', async () => {
      const created = (await post({ title: 'before', n: 1, flag: true })).body.data;
      clock.advance(60);
      const patched = await patch(created.id, { title: 'after', n: null });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.title, 'after');
      assert.equal(patched.body.data.n, null);
      assert.equal(patched.body.data.flag, true);
      assert.equal(patched.body.data.created_at, created.created_at);
      assert.equal(patched.body.data.updated_at, '2026-03-01T10:01:00.000Z');
      assert.deepEqual((await get(created.id)).body.data, patched.body.data);
    });

    it('PATCH with an empty body → 200, values unchanged', async () => {
      const created = (await post({ title: 'same' })).body.data;
      const patched = await patch(created.id, {});
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.title, 'same');
    });

    it('DELETE → 204; then GET, PATCH and DELETE → 404 ROW_NOT_FOUND', async () => {
      const created = (await post({ title: 'doomed' })).body.data;
      const deleted = await server.request('DELETE', api(`/${created.id}`), { headers: project.admin });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assertError(await get(created.id), 404, 'ROW_NOT_FOUND');
      assertError(await patch(created.id, { title: 'ghost' }), 404, 'ROW_NOT_FOUND');
      assertError(
        await server.request('DELETE', api(`/${created.id}`), { headers: project.admin }),
        404,
        'ROW_NOT_FOUND',
      );
    });

    const missing: [string, string, unknown?][] = [
      ['GET', '/does-not-exist'],
      ['PATCH', '/does-not-exist', { title: 'x' }],
      ['DELETE', '/does-not-exist'],
    ];
    for (const [method, path, body] of missing) {
      it(`${method} of a missing row → 404 ROW_NOT_FOUND`, async () => {
        assertError(
          await server.request(method, api(path), { headers: project.admin, ...(body !== undefined && { body }) }),
          404,
          'ROW_NOT_FOUND',
        );
      });
    }

    const unknownTable: [string, string, unknown?][] = [
      ['GET', ''],
      ['GET', '/some-id'],
      ['POST', '', { a: 1 }],
      ['POST', '/bulk', [{ a: 1 }]],
      ['PATCH', '/some-id', { a: 1 }],
      ['DELETE', '/some-id'],
    ];
    for (const [method, path, body] of unknownTable) {
      it(`${method} /api/nope${path} → 404 TABLE_NOT_FOUND`, async () => {
        const response = await server.request(method, `/p/${project.id}/api/nope${path}`, {
          headers: project.admin,
          ...(body !== undefined && { body }),
        });
        assertError(response, 404, 'TABLE_NOT_FOUND');
      });
    }
  });

  describe('validation → 400', () => {
    let totalBefore: number;
    before(async () => {
      totalBefore = (await server.request('GET', `${api()}?limit=0`, { headers: project.admin })).body.meta.total;
    });
    const cases: [string, unknown, string, string][] = [
      ['unknown column', { title: 't', color: 'red' }, 'VALIDATION_UNKNOWN_COLUMN', 'color'],
      ['required column missing', { body: 'x' }, 'VALIDATION_FAILED', 'title'],
      ['required column null', { title: null }, 'VALIDATION_FAILED', 'title'],
      ['text given a number', { title: 5 }, 'VALIDATION_FAILED', 'title'],
      ['text over max_length', { title: 'x'.repeat(21) }, 'VALIDATION_FAILED', 'title'],
      ['text outside the enum', { title: 't', status: 'pending' }, 'VALIDATION_FAILED', 'status'],
      ['integer given a string', { title: 't', n: '5' }, 'VALIDATION_FAILED', 'n'],
      ['integer given a fraction', { title: 't', n: 1.5 }, 'VALIDATION_FAILED', 'n'],
      ['integer above 2^53−1', { title: 't', n: MAX + 2 }, 'VALIDATION_FAILED', 'n'],
      ['integer below min', { title: 't', rating: 0 }, 'VALIDATION_FAILED', 'rating'],
      ['integer above max', { title: 't', rating: 6 }, 'VALIDATION_FAILED', 'rating'],
      ['number given a string', { title: 't', x: '3.5' }, 'VALIDATION_FAILED', 'x'],
      ['number below min', { title: 't', ratio: -0.01 }, 'VALIDATION_FAILED', 'ratio'],
      ['number above max', { title: 't', ratio: 1.01 }, 'VALIDATION_FAILED', 'ratio'],
      ['boolean given a string', { title: 't', flag: 'true' }, 'VALIDATION_FAILED', 'flag'],
      ['boolean given 1', { title: 't', flag: 1 }, 'VALIDATION_FAILED', 'flag'],
      // PostgreSQL cannot store U+0000, so no engine does (docs/engines.md).
      ['text with a NUL character', { title: 't', body: 'a\u0000b' }, 'VALIDATION_FAILED', 'body'],
      [
        'json with a NUL character in a nested string',
        { title: 't', doc: { a: ['x\u0000'] } },
        'VALIDATION_FAILED',
        'doc',
      ],
      ['json with a NUL character in a key', { title: 't', doc: { 'k\u0000': 1 } }, 'VALIDATION_FAILED', 'doc'],
      ['timestamp not a date', { title: 't', at: 'yesterday' }, 'VALIDATION_FAILED', 'at'],
      ['timestamp with an impossible day', { title: 't', at: '2026-02-31T00:00:00Z' }, 'VALIDATION_FAILED', 'at'],
      ['timestamp given a number', { title: 't', at: 1767225600000 }, 'VALIDATION_FAILED', 'at'],
      [
        'created_at is read-only',
        { title: 't', created_at: '2026-01-01T00:00:00Z' },
        'VALIDATION_FAILED',
        'created_at',
      ],
      [
        'updated_at is read-only',
        { title: 't', updated_at: '2026-01-01T00:00:00Z' },
        'VALIDATION_FAILED',
        'updated_at',
      ],
    ];
    for (const [label, body, code, column] of cases) {
      it(`POST: ${label} → ${code} naming ${column}`, async () => {
        const response = await post(body);
        assertError(response, 400, code);
        assertMessageIncludes(response, column);
      });
    }
    it('the unknown-column suggestion lists the columns', async () => {
      const response = await post({ title: 't', color: 'red' });
      for (const column of ['title', 'status', 'doc'])
        assert.ok(response.body.error.suggestion.includes(column), response.body.error.suggestion);
    });
    for (const [label, body] of [
      ['an array', [{ title: 't' }]],
      ['a string', 'title'],
      ['a number', 5],
      ['null', null],
    ] as const) {
      it(`POST with ${label} as body → 400 VALIDATION_FAILED`, async () => {
        assertError(await post(body), 400, 'VALIDATION_FAILED');
      });
    }
    it('nothing was written by the refused POSTs', async () => {
      const list = await server.request('GET', `${api()}?limit=0`, { headers: project.admin });
      assert.equal(list.body.meta.total, totalBefore);
    });

    const patchCases: [string, unknown, string, string][] = [
      ['id', { id: 'new-id' }, 'VALIDATION_FAILED', 'id'],
      ['created_at', { created_at: '2020-01-01T00:00:00Z' }, 'VALIDATION_FAILED', 'created_at'],
      ['updated_at', { updated_at: '2020-01-01T00:00:00Z' }, 'VALIDATION_FAILED', 'updated_at'],
      ['an unknown column', { color: 'red' }, 'VALIDATION_UNKNOWN_COLUMN', 'color'],
      ['a required column set to null', { title: null }, 'VALIDATION_FAILED', 'title'],
      ['a wrong type', { flag: 'yes' }, 'VALIDATION_FAILED', 'flag'],
      ['a value over max', { rating: 9 }, 'VALIDATION_FAILED', 'rating'],
    ];
    for (const [label, body, code, column] of patchCases) {
      it(`PATCH with ${label} → ${code}; the row is unchanged`, async () => {
        const created = (await post({ title: 'stable', rating: 3, flag: true })).body.data;
        const response = await patch(created.id, body);
        assertError(response, 400, code);
        assertMessageIncludes(response, column);
        assert.deepEqual((await get(created.id)).body.data, created);
      });
    }
  });

  describe('conflicts → 409', () => {
    it('a duplicate unique value on POST → CONFLICT_UNIQUE naming the column', async () => {
      assert.equal((await post({ title: 'u1', code: 'ABC' })).status, 201);
      const response = await post({ title: 'u2', code: 'ABC' });
      assertError(response, 409, 'CONFLICT_UNIQUE');
      assertMessageIncludes(response, 'code');
    });
    it('unique is case-sensitive for plain text columns', async () => {
      assert.equal((await post({ title: 'u3', code: 'abc' })).status, 201);
    });
    it('a duplicate unique value on PATCH → CONFLICT_UNIQUE; the row is unchanged', async () => {
      const other = (await post({ title: 'u4', code: 'XYZ' })).body.data;
      assertError(await patch(other.id, { code: 'ABC' }), 409, 'CONFLICT_UNIQUE');
      assert.equal((await get(other.id)).body.data.code, 'XYZ');
    });
    it('several rows may leave a unique column null', async () => {
      assert.equal((await post({ title: 'n1' })).status, 201);
      assert.equal((await post({ title: 'n2' })).status, 201);
    });
    it('a reference to a missing row on POST → CONFLICT_REFERENCE', async () => {
      assertError(await post({ thing: 'missing' }, 'links'), 409, 'CONFLICT_REFERENCE');
    });
    it('a reference to a missing row on PATCH → CONFLICT_REFERENCE', async () => {
      const target = (await post({ title: 'target' })).body.data;
      const link = await post({ thing: target.id }, 'links');
      assert.equal(link.status, 201, link.text);
      const response = await server.request('PATCH', `/p/${project.id}/api/links/${link.body.data.id}`, {
        headers: project.admin,
        body: { thing: 'missing' },
      });
      assertError(response, 409, 'CONFLICT_REFERENCE');
      assertError(
        await server.request('DELETE', api(`/${target.id}`), { headers: project.admin }),
        409,
        'CONFLICT_REFERENCE',
      );
    });
  });
});
