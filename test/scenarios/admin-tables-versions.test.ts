/**
 * Versioned and create-only table changes (contract §2): the ETag of GET and PUT answers,
 * PUT with If-None-Match: * (create only) and If-Match (only that version), and PATCH, which
 * changes only what its body names. Issue 21: a "New table" with an existing name replaced
 * the table and reset its rules; these requests can no longer do that by accident.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const QUICKSTART = {
  columns: [
    { name: 'title', type: 'text', required: true, max_length: 200 },
    { name: 'done', type: 'boolean', default: false },
  ],
  rules: { list: '', view: '', create: null, update: null, delete: null },
};

describe('table versions: ETag, If-None-Match, If-Match and PATCH', () => {
  let server: TestServer;
  let project: TestProject;
  let other: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'versions');
    other = await createProject(server, 'versions-other');
  });
  after(() => server.close());

  const url = (name: string, query = '') => `/p/${project.id}/v1/tables/${name}${query}`;
  const get = (name: string) => server.request('GET', url(name), { headers: project.admin });
  const put = (name: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
    server.request('PUT', url(name, query), { headers: { ...project.admin, ...headers }, body });
  const patch = (name: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
    server.request('PATCH', url(name, query), { headers: { ...project.admin, ...headers }, body });
  const etagOf = async (name: string) => {
    const response = await get(name);
    assert.equal(response.status, 200, response.text);
    return response.headers.get('etag')!;
  };

  describe('ETag', () => {
    before(() => putTable(server, project, 'etags', QUICKSTART));

    it('GET of a table carries a strong, quoted ETag, the same on every read', async () => {
      const first = await etagOf('etags');
      assert.match(first, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(await etagOf('etags'), first);
    });

    it('the PUT answer carries the ETag a following GET gives', async () => {
      const response = await put('etags', QUICKSTART);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('etag'), await etagOf('etags'));
    });

    it('a PUT that changes nothing keeps the ETag; a change gives a new one', async () => {
      const before = await etagOf('etags');
      await put('etags', QUICKSTART);
      assert.equal(await etagOf('etags'), before);
      await put('etags', { ...QUICKSTART, rules: { ...QUICKSTART.rules, create: '' } });
      assert.notEqual(await etagOf('etags'), before);
    });

    it('the same definition in two projects (two databases) has the same ETag', async () => {
      await putTable(server, other, 'etags', QUICKSTART);
      const theirs = await server.request('GET', `/p/${other.id}/v1/tables/etags`, { headers: other.admin });
      await put('etags', QUICKSTART);
      assert.equal(theirs.headers.get('etag'), await etagOf('etags'));
    });

    it('the ETag is the same after a restart of the server', async () => {
      const dataDir = `${server.dataDir}-restart`;
      try {
        const first = await startTestServer({}, { dataDir });
        const mine = await createProject(first, 'restarted');
        const created = await first.request('PUT', `/p/${mine.id}/v1/tables/tasks`, {
          headers: mine.admin,
          body: QUICKSTART,
        });
        await first.close();
        const second = await startTestServer({}, { dataDir });
        try {
          const read = await second.request('GET', `/p/${mine.id}/v1/tables/tasks`, { headers: mine.admin });
          assert.equal(read.status, 200, read.text);
          assert.equal(read.headers.get('etag'), created.headers.get('etag'));
        } finally {
          await second.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('PUT with If-None-Match: * (create only)', () => {
    it('creates a missing table → 201 with an ETag', async () => {
      const response = await put('fresh', QUICKSTART, { 'if-none-match': '*' });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.headers.get('etag'), await etagOf('fresh'));
    });

    it('an existing table → 412 TABLE_EXISTS, and its rules and columns are untouched', async () => {
      const before = (await get('fresh')).body.data;
      const response = await put(
        'fresh',
        {
          columns: [
            { name: 'title', type: 'text' },
            { name: 'a', type: 'text' },
            { name: 'b', type: 'integer' },
          ],
        },
        { 'if-none-match': '*' },
      );
      assertError(response, 412, 'TABLE_EXISTS');
      assertMessageIncludes(response, 'fresh');
      assert.match(response.body.error.suggestion, /PATCH/);
      assert.deepEqual((await get('fresh')).body.data, before);
      assert.deepEqual(before.rules, QUICKSTART.rules);
    });

    it('If-None-Match with an ETag instead of * → 400 VALIDATION_FAILED', async () => {
      assertError(await put('fresh', QUICKSTART, { 'if-none-match': await etagOf('fresh') }), 400, 'VALIDATION_FAILED');
    });
  });

  describe('PUT with If-Match', () => {
    before(() => putTable(server, project, 'matched', QUICKSTART));

    it('the current ETag → 200 and the change applies', async () => {
      const etag = await etagOf('matched');
      const response = await put(
        'matched',
        { ...QUICKSTART, rules: { ...QUICKSTART.rules, create: '' } },
        { 'if-match': etag },
      );
      assert.equal(response.status, 200, response.text);
      assert.equal((await get('matched')).body.data.rules.create, '');
      assert.notEqual(response.headers.get('etag'), etag);
    });

    it('a stale ETag → 412 SCHEMA_CHANGED, and the newer version stays', async () => {
      const stale = await etagOf('matched');
      await put('matched', { ...QUICKSTART, rules: { ...QUICKSTART.rules, delete: '' } });
      const current = (await get('matched')).body.data;
      const response = await put('matched', QUICKSTART, { 'if-match': stale });
      assertError(response, 412, 'SCHEMA_CHANGED');
      assert.match(response.body.error.suggestion, /If-Match/);
      assert.deepEqual((await get('matched')).body.data, current);
    });

    it('one of several ETags matching → 200', async () => {
      const response = await put('matched', QUICKSTART, { 'if-match': `"nope", ${await etagOf('matched')}` });
      assert.equal(response.status, 200, response.text);
    });

    it('a table that does not exist → 412 SCHEMA_CHANGED, and it is not created', async () => {
      const response = await put('ghost', QUICKSTART, { 'if-match': '"abc"' });
      assertError(response, 412, 'SCHEMA_CHANGED');
      assertError(await get('ghost'), 404, 'TABLE_NOT_FOUND');
    });

    it('an unquoted If-Match → 400 VALIDATION_FAILED', async () => {
      assertError(await put('matched', QUICKSTART, { 'if-match': 'abc' }), 400, 'VALIDATION_FAILED');
    });
  });

  describe('PATCH', () => {
    before(async () => {
      await putTable(server, project, 'patched', QUICKSTART);
      for (const title of ['one', 'two']) {
        const response = await server.request('POST', `/p/${project.id}/api/patched`, {
          headers: project.admin,
          body: { title },
        });
        assert.equal(response.status, 201, response.text);
      }
    });
    const rows = async () =>
      (await server.request('GET', `/p/${project.id}/api/patched?sort=title`, { headers: project.admin })).body
        .data as Record<string, unknown>[];

    it('{"rules": {"create": ""}} changes that rule only → 200 with the table and its ETag', async () => {
      const response = await patch('patched', { rules: { create: '' } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.rules, { ...QUICKSTART.rules, create: '' });
      assert.deepEqual(response.body.data.columns, (await get('patched')).body.data.columns);
      assert.equal(response.headers.get('etag'), await etagOf('patched'));
    });

    it('the opened rule works for the pk_ key while the others keep theirs', async () => {
      const created = await server.request('POST', `/p/${project.id}/api/patched`, {
        headers: project.anon,
        body: { title: 'three' },
      });
      assert.equal(created.status, 201, created.text);
      assertError(
        await server.request('DELETE', `/p/${project.id}/api/patched/${created.body.data.id}`, {
          headers: project.anon,
        }),
        403,
        'FORBIDDEN',
      );
      await server.request('DELETE', `/p/${project.id}/api/patched/${created.body.data.id}`, {
        headers: project.admin,
      });
    });

    it('adding a column keeps the other columns and the rows', async () => {
      const response = await patch('patched', { columns: [{ name: 'note', type: 'text', default: 'n/a' }] });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.columns.map((c: { name: string }) => c.name),
        ['title', 'done', 'note'],
      );
      assert.deepEqual(
        (await rows()).map((r) => [r.title, r.note]),
        [
          ['one', 'n/a'],
          ['two', 'n/a'],
        ],
      );
    });

    it('changing one column by name keeps its other options; null removes an option', async () => {
      let response = await patch('patched', { columns: [{ name: 'title', max_length: 500 }] });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.columns[0], {
        name: 'title',
        type: 'text',
        required: true,
        unique: false,
        max_length: 500,
      });
      response = await patch('patched', { columns: [{ name: 'title', max_length: null }] });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.columns[0].max_length, undefined);
      assert.equal(response.body.data.columns[0].required, true);
    });

    it('indexes are replaced when given', async () => {
      const response = await patch('patched', { indexes: [['done', 'title']] });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.indexes, [['done', 'title']]);
      assert.deepEqual((await patch('patched', { rules: { view: '' } })).body.data.indexes, [['done', 'title']]);
    });

    it('a destructive type change without allow_destructive → 409 SCHEMA_CHANGE_DESTRUCTIVE, no change', async () => {
      const before = (await get('patched')).body.data;
      assertError(
        await patch('patched', { columns: [{ name: 'note', type: 'integer', default: null }] }),
        409,
        'SCHEMA_CHANGE_DESTRUCTIVE',
      );
      assert.deepEqual((await get('patched')).body.data, before);
      const allowed = await patch(
        'patched',
        { columns: [{ name: 'note', type: 'integer', default: null }] },
        {},
        '?allow_destructive=true',
      );
      assert.equal(allowed.status, 200, allowed.text);
      assert.equal(allowed.body.data.columns[2].type, 'integer');
    });

    it('an invalid change → 400 VALIDATION_FAILED in the envelope, nothing changes', async () => {
      const before = (await get('patched')).body.data;
      for (const body of [
        { rules: { list: 7 } },
        { rules: { publish: '' } },
        { columns: [{ type: 'text' }] },
        { columns: [{ name: 'x', type: 'colour' }] },
        { colour: 'red' },
        [],
        { rules: 'anyone' },
      ]) {
        assertError(await patch('patched', body), 400, 'VALIDATION_FAILED');
      }
      assertError(await patch('patched', { rules: { list: 'nosuch = 1' } }), 400, 'VALIDATION_FAILED');
      assert.deepEqual((await get('patched')).body.data, before);
    });

    it('If-Match: a stale ETag → 412 SCHEMA_CHANGED, the current one → 200', async () => {
      const stale = await etagOf('patched');
      await patch('patched', { rules: { update: '' } });
      assertError(await patch('patched', { rules: { update: null } }, { 'if-match': stale }), 412, 'SCHEMA_CHANGED');
      assert.equal((await get('patched')).body.data.rules.update, '');
      const response = await patch('patched', { rules: { update: null } }, { 'if-match': await etagOf('patched') });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.rules.update, null);
    });

    it('an unknown table → 404 TABLE_NOT_FOUND, and it is not created', async () => {
      assertError(await patch('nosuch', { rules: { list: '' } }), 404, 'TABLE_NOT_FOUND');
      assertError(await get('nosuch'), 404, 'TABLE_NOT_FOUND');
    });
  });

  describe('callers of the new requests', () => {
    before(() => putTable(server, project, 'guarded', QUICKSTART));
    const cases: [string, () => Record<string, string>, number, string][] = [
      ['no key', () => ({}), 401, 'AUTH_REQUIRED'],
      ['the pk_ key (X-Api-Key)', () => project.anon, 401, 'AUTH_REQUIRED'],
      ['the pk_ key as X-Admin-Key', () => ({ 'x-admin-key': project.publishableKey }), 401, 'AUTH_INVALID_KEY'],
      ["another project's sk_ key", () => other.admin, 401, 'AUTH_INVALID_KEY'],
    ];
    for (const [who, headers, status, code] of cases) {
      it(`PATCH with ${who} → ${status} ${code}, nothing changes`, async () => {
        assertError(
          await server.request('PATCH', url('guarded'), { headers: headers(), body: { rules: { delete: '' } } }),
          status,
          code,
        );
        assert.equal((await get('guarded')).body.data.rules.delete, null);
      });
      it(`PUT with If-None-Match: * and ${who} → ${status} ${code}`, async () => {
        assertError(
          await server.request('PUT', url('unguarded'), {
            headers: { ...headers(), 'if-none-match': '*' },
            body: QUICKSTART,
          }),
          status,
          code,
        );
      });
    }
  });

  describe('the 403 of a locked rule', () => {
    it('says the rule is null and names the PATCH that opens it', async () => {
      await putTable(server, project, 'locked', { columns: [{ name: 'title', type: 'text' }] });
      const response = await server.request('GET', `/p/${project.id}/api/locked`, { headers: project.anon });
      assertError(response, 403, 'FORBIDDEN');
      assert.ok(response.body.error.suggestion.includes('list rule is null (admin key only)'), response.text);
      assert.ok(
        response.body.error.suggestion.includes(`PATCH /p/${project.id}/v1/tables/locked {"rules": {"list": ""}}`),
        response.text,
      );
    });
  });
});
