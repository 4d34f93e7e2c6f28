/**
 * The schema API on tables that hold rows (contract §2): declarative changes keep rows,
 * destructive changes need ?allow_destructive=true, references with each on_delete,
 * indexes, and tables in use.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { indexColumns as indexColumnsOf } from '../helpers/storage-inspect.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('schema changes on tables with rows', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'schema-changes');
  });
  after(() => server.close());

  const tableUrl = (name: string, query = '') => `/p/${project.id}/v1/tables/${name}${query}`;
  const put = (name: string, body: unknown, query = '') =>
    server.request('PUT', tableUrl(name, query), { headers: project.admin, body });
  const insert = async (table: string, body: unknown) => {
    const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  const rows = async (table: string) => {
    const response = await server.request('GET', `/p/${project.id}/api/${table}?limit=1000`, {
      headers: project.admin,
    });
    assert.equal(response.status, 200, response.text);
    return response.body.data as Record<string, unknown>[];
  };
  const getRow = (table: string, id: string) =>
    server.request('GET', `/p/${project.id}/api/${table}/${id}`, { headers: project.admin });
  const deleteRow = (table: string, id: string) =>
    server.request('DELETE', `/p/${project.id}/api/${table}/${id}`, { headers: project.admin });

  describe('adding and dropping columns', () => {
    const base = [
      { name: 'title', type: 'text' },
      { name: 'size', type: 'integer' },
    ];
    let ids: string[];
    before(async () => {
      await putTable(server, project, 'items', { columns: base });
      ids = [(await insert('items', { title: 'a', size: 1 })).id, (await insert('items', { title: 'b', size: 2 })).id];
    });

    it('adding a column keeps the rows and fills in its default → 200', async () => {
      const response = await put('items', {
        columns: [...base, { name: 'done', type: 'boolean', default: false }, { name: 'note', type: 'text' }],
      });
      assert.equal(response.status, 200, response.text);
      const list = await rows('items');
      assert.deepEqual(
        list.map((r) => r.id),
        ids,
      );
      assert.deepEqual(
        list.map((r) => [r.title, r.size, r.done, r.note]),
        [
          ['a', 1, false, null],
          ['b', 2, false, null],
        ],
      );
    });

    it('adding a required column with a default to a non-empty table fills it → 200', async () => {
      const response = await put('items', {
        columns: [
          ...base,
          { name: 'done', type: 'boolean', default: false },
          { name: 'note', type: 'text' },
          { name: 'kind', type: 'text', required: true, default: 'std' },
        ],
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        (await rows('items')).map((r) => r.kind),
        ['std', 'std'],
      );
    });

    it('adding a required column without a default to a non-empty table → 409 SCHEMA_CHANGE_REJECTED', async () => {
      const response = await put('items', {
        columns: [
          ...base,
          { name: 'done', type: 'boolean', default: false },
          { name: 'note', type: 'text' },
          { name: 'kind', type: 'text', required: true, default: 'std' },
          { name: 'owner', type: 'text', required: true },
        ],
      });
      assertError(response, 409, 'SCHEMA_CHANGE_REJECTED');
      const table = await server.request('GET', tableUrl('items'), { headers: project.admin });
      assert.ok(!table.body.data.columns.some((c: { name: string }) => c.name === 'owner'), 'the column was not added');
    });

    it('making a column required while rows have no value → 409 SCHEMA_CHANGE_REJECTED', async () => {
      const response = await put('items', {
        columns: [
          ...base,
          { name: 'done', type: 'boolean', default: false },
          { name: 'note', type: 'text', required: true },
          { name: 'kind', type: 'text', required: true, default: 'std' },
        ],
      });
      assertError(response, 409, 'SCHEMA_CHANGE_REJECTED');
    });

    it('dropping a column → 409 SCHEMA_CHANGE_DESTRUCTIVE naming it, and nothing changes', async () => {
      const response = await put('items', {
        columns: [
          { name: 'title', type: 'text' },
          { name: 'done', type: 'boolean', default: false },
          { name: 'kind', type: 'text', required: true, default: 'std' },
          { name: 'note', type: 'text' },
        ],
      });
      assertError(response, 409, 'SCHEMA_CHANGE_DESTRUCTIVE');
      assertMessageIncludes(response, 'size');
      assert.deepEqual(
        (await rows('items')).map((r) => r.size),
        [1, 2],
      );
    });

    it('the same drop with ?allow_destructive=true → 200; rows kept without the column', async () => {
      const response = await put(
        'items',
        {
          columns: [
            { name: 'title', type: 'text' },
            { name: 'done', type: 'boolean', default: false },
            { name: 'kind', type: 'text', required: true, default: 'std' },
            { name: 'note', type: 'text' },
          ],
        },
        '?allow_destructive=true',
      );
      assert.equal(response.status, 200, response.text);
      const list = await rows('items');
      assert.deepEqual(
        list.map((r) => r.id),
        ids,
      );
      assert.deepEqual(
        list.map((r) => r.title),
        ['a', 'b'],
      );
      for (const row of list) assert.equal('size' in row, false);
      const created = await insert('items', { title: 'c' });
      assert.equal('size' in created, false);
      assertError(
        await server.request('POST', `/p/${project.id}/api/items`, {
          headers: project.admin,
          body: { title: 'd', size: 3 },
        }),
        400,
        'VALIDATION_UNKNOWN_COLUMN',
      );
    });

    it('re-adding a dropped column does not bring its old values back', async () => {
      const response = await put('items', {
        columns: [
          { name: 'title', type: 'text' },
          { name: 'done', type: 'boolean', default: false },
          { name: 'kind', type: 'text', required: true, default: 'std' },
          { name: 'note', type: 'text' },
          { name: 'size', type: 'integer' },
        ],
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        (await rows('items')).map((r) => r.size),
        [null, null, null],
      );
    });

    it('allow_destructive=false is not permission', async () => {
      const response = await put('items', { columns: [{ name: 'title', type: 'text' }] }, '?allow_destructive=false');
      assertError(response, 409, 'SCHEMA_CHANGE_DESTRUCTIVE');
    });
  });

  describe('values survive rebuilds', () => {
    it('an explicit null in a nullable column with a default stays null when the table is rebuilt', async () => {
      await putTable(server, project, 'nulls', {
        columns: [
          { name: 'note', type: 'text', default: 'x' },
          { name: 'gone', type: 'integer' },
        ],
      });
      const row = await insert('nulls', { note: null, gone: 1 });
      assert.equal(row.note, null);
      const response = await put(
        'nulls',
        { columns: [{ name: 'note', type: 'text', default: 'x' }] },
        '?allow_destructive=true',
      );
      assert.equal(response.status, 200, response.text);
      assert.equal((await getRow('nulls', row.id)).body.data.note, null);
    });

    it('adding a default later does not fill old nulls; making the column required with a default does', async () => {
      await putTable(server, project, 'later', { columns: [{ name: 'note', type: 'text' }] });
      const row = await insert('later', {});
      assert.equal((await put('later', { columns: [{ name: 'note', type: 'text', default: 'filled' }] })).status, 200);
      assert.equal((await getRow('later', row.id)).body.data.note, null);
      assert.equal(
        (
          await put('later', {
            columns: [
              { name: 'note', type: 'text', default: 'filled' },
              { name: 'added', type: 'text', required: true, default: 'd' },
            ],
          })
        ).status,
        200,
      );
      assert.deepEqual(
        [(await getRow('later', row.id)).body.data.note, (await getRow('later', row.id)).body.data.added],
        [null, 'd'],
      );
      assert.equal(
        (
          await put('later', {
            columns: [
              { name: 'note', type: 'text', required: true, default: 'filled' },
              { name: 'added', type: 'text', required: true, default: 'd' },
            ],
          })
        ).status,
        200,
      );
      assert.equal((await getRow('later', row.id)).body.data.note, 'filled');
    });
  });

  describe('type changes', () => {
    before(async () => {
      await putTable(server, project, 'measures', {
        columns: [
          { name: 'label', type: 'text' },
          { name: 'amount', type: 'integer' },
        ],
      });
      await insert('measures', { label: '12', amount: 7 });
    });

    it('integer → number keeps the values without allow_destructive → 200', async () => {
      const response = await put('measures', {
        columns: [
          { name: 'label', type: 'text' },
          { name: 'amount', type: 'number' },
        ],
      });
      assert.equal(response.status, 200, response.text);
      assert.equal((await rows('measures'))[0]!.amount, 7);
      await insert('measures', { label: 'x', amount: 2.5 });
    });

    it('text → integer → 409 SCHEMA_CHANGE_DESTRUCTIVE', async () => {
      const response = await put('measures', {
        columns: [
          { name: 'label', type: 'integer' },
          { name: 'amount', type: 'number' },
        ],
      });
      assertError(response, 409, 'SCHEMA_CHANGE_DESTRUCTIVE');
      assertMessageIncludes(response, 'label');
    });

    it('number → integer → 409 SCHEMA_CHANGE_DESTRUCTIVE', async () => {
      assertError(
        await put('measures', {
          columns: [
            { name: 'label', type: 'text' },
            { name: 'amount', type: 'integer' },
          ],
        }),
        409,
        'SCHEMA_CHANGE_DESTRUCTIVE',
      );
    });

    it('with ?allow_destructive=true → 200; rows kept, the changed column cleared', async () => {
      const response = await put(
        'measures',
        {
          columns: [
            { name: 'label', type: 'json' },
            { name: 'amount', type: 'number' },
          ],
        },
        '?allow_destructive=true',
      );
      assert.equal(response.status, 200, response.text);
      const list = await rows('measures');
      assert.equal(list.length, 2);
      assert.deepEqual(
        list.map((r) => r.amount),
        [7, 2.5],
      );
      assert.deepEqual(
        list.map((r) => r.label),
        [null, null],
      );
    });
  });

  describe('options on existing columns', () => {
    before(async () => {
      await putTable(server, project, 'tags', { columns: [{ name: 'slug', type: 'text' }] });
      await insert('tags', { slug: 'dup' });
      await insert('tags', { slug: 'dup' });
    });

    it('adding unique to a column with duplicates → 409 CONFLICT_UNIQUE', async () => {
      const response = await put('tags', { columns: [{ name: 'slug', type: 'text', unique: true }] });
      assertError(response, 409, 'CONFLICT_UNIQUE');
      assertMessageIncludes(response, 'slug');
      await insert('tags', { slug: 'dup' }); // still not unique
    });

    it('adding unique once the duplicates are gone → 200, then duplicates → 409 CONFLICT_UNIQUE', async () => {
      for (const row of (await rows('tags')).slice(1))
        assert.equal((await deleteRow('tags', String(row.id))).status, 204);
      const response = await put('tags', { columns: [{ name: 'slug', type: 'text', unique: true }] });
      assert.equal(response.status, 200, response.text);
      assertError(
        await server.request('POST', `/p/${project.id}/api/tags`, { headers: project.admin, body: { slug: 'dup' } }),
        409,
        'CONFLICT_UNIQUE',
      );
    });

    it('changing rules takes effect at once', async () => {
      assertError(
        await server.request('GET', `/p/${project.id}/api/tags`, { headers: project.anon }),
        403,
        'FORBIDDEN',
      );
      const response = await put('tags', {
        columns: [{ name: 'slug', type: 'text', unique: true }],
        rules: { list: '' },
      });
      assert.equal(response.status, 200, response.text);
      const list = await server.request('GET', `/p/${project.id}/api/tags`, { headers: project.anon });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.meta.total, 1);
    });

    it('a new max_length applies to new writes', async () => {
      const response = await put('tags', {
        columns: [{ name: 'slug', type: 'text', unique: true, max_length: 3 }],
        rules: { list: '' },
      });
      assert.equal(response.status, 200, response.text);
      const refused = await server.request('POST', `/p/${project.id}/api/tags`, {
        headers: project.admin,
        body: { slug: 'long' },
      });
      assertError(refused, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(refused, 'slug');
    });
  });

  describe('references', () => {
    before(async () => {
      await putTable(server, project, 'parents', { columns: [{ name: 'name', type: 'text' }] });
      await putTable(server, project, 'kids_cascade', {
        columns: [{ name: 'parent', type: 'text', references: { table: 'parents', on_delete: 'cascade' } }],
      });
      await putTable(server, project, 'kids_restrict', {
        columns: [{ name: 'parent', type: 'text', references: { table: 'parents', on_delete: 'restrict' } }],
      });
      await putTable(server, project, 'kids_null', {
        columns: [{ name: 'parent', type: 'text', references: { table: 'parents', on_delete: 'set_null' } }],
      });
    });

    it('on_delete cascade: deleting the parent deletes its children, not others', async () => {
      const parent = await insert('parents', { name: 'p1' });
      const otherParent = await insert('parents', { name: 'p2' });
      const kid = await insert('kids_cascade', { parent: parent.id });
      const otherKid = await insert('kids_cascade', { parent: otherParent.id });
      assert.equal((await deleteRow('parents', parent.id)).status, 204);
      assertError(await getRow('kids_cascade', kid.id), 404, 'ROW_NOT_FOUND');
      assert.equal((await getRow('kids_cascade', otherKid.id)).status, 200);
    });

    it('on_delete restrict: deleting a referenced parent → 409 CONFLICT_REFERENCE; both rows stay', async () => {
      const parent = await insert('parents', { name: 'p3' });
      const kid = await insert('kids_restrict', { parent: parent.id });
      assertError(await deleteRow('parents', parent.id), 409, 'CONFLICT_REFERENCE');
      assert.equal((await getRow('parents', parent.id)).status, 200);
      assert.equal((await getRow('kids_restrict', kid.id)).status, 200);
      assert.equal((await deleteRow('kids_restrict', kid.id)).status, 204);
      assert.equal((await deleteRow('parents', parent.id)).status, 204);
    });

    it('on_delete set_null: deleting the parent clears the reference', async () => {
      const parent = await insert('parents', { name: 'p4' });
      const kid = await insert('kids_null', { parent: parent.id });
      assert.equal((await deleteRow('parents', parent.id)).status, 204);
      const after = await getRow('kids_null', kid.id);
      assert.equal(after.status, 200);
      assert.equal(after.body.data.parent, null);
    });

    it('a reference to a missing row → 409 CONFLICT_REFERENCE', async () => {
      const response = await server.request('POST', `/p/${project.id}/api/kids_cascade`, {
        headers: project.admin,
        body: { parent: 'no-such-parent' },
      });
      assertError(response, 409, 'CONFLICT_REFERENCE');
    });

    it('a table may reference itself, and can still be deleted', async () => {
      await putTable(server, project, 'nodes', {
        columns: [{ name: 'up', type: 'text', references: { table: 'nodes', on_delete: 'cascade' } }],
      });
      const root = await insert('nodes', {});
      const leaf = await insert('nodes', { up: root.id });
      assert.equal((await deleteRow('nodes', root.id)).status, 204);
      assertError(await getRow('nodes', leaf.id), 404, 'ROW_NOT_FOUND');
      assert.equal((await server.request('DELETE', tableUrl('nodes'), { headers: project.admin })).status, 204);
    });

    it('deleting a table another table references → 409 TABLE_IN_USE naming the referrer', async () => {
      const response = await server.request('DELETE', tableUrl('parents'), { headers: project.admin });
      assertError(response, 409, 'TABLE_IN_USE');
      assertMessageIncludes(response, 'kids_');
      assert.equal((await server.request('GET', tableUrl('parents'), { headers: project.admin })).status, 200);
    });

    it('TABLE_IN_USE suggests the PATCH that drops the reference; following it lets the delete through', async () => {
      await putTable(server, project, 'owners', { columns: [{ name: 'name', type: 'text' }] });
      await putTable(server, project, 'pets', {
        columns: [
          { name: 'owner', type: 'text', references: { table: 'owners', on_delete: 'restrict' } },
          { name: 'name', type: 'text' },
        ],
      });
      const owner = await insert('owners', { name: 'Ada' });
      const pet = await insert('pets', { owner: owner.id, name: 'Rex' });
      const refused = await server.request('DELETE', tableUrl('owners'), { headers: project.admin });
      assertError(refused, 409, 'TABLE_IN_USE');
      const suggested = /PATCH \/p\/schema-changes\/v1\/tables\/pets with (\{.*\})\.$/.exec(
        refused.body.error.suggestion,
      );
      assert.ok(suggested, refused.body.error.suggestion);
      const patched = await server.request('PATCH', tableUrl('pets'), {
        headers: project.admin,
        body: JSON.parse(suggested[1]!),
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal((await server.request('DELETE', tableUrl('owners'), { headers: project.admin })).status, 204);
      assert.equal((await getRow('pets', pet.id)).body.data.name, 'Rex', 'the referring rows are kept');
    });

    it('adding a reference column to a table whose rows would break it → 409', async () => {
      await putTable(server, project, 'loose', { columns: [{ name: 'parent', type: 'text' }] });
      await insert('loose', { parent: 'dangling' });
      const response = await put('loose', {
        columns: [{ name: 'parent', type: 'text', references: { table: 'parents', on_delete: 'cascade' } }],
      });
      assertError(response, 409, 'CONFLICT_REFERENCE');
    });

    it('once the references are removed the parent table can be deleted', async () => {
      for (const kid of ['kids_cascade', 'kids_restrict', 'kids_null']) {
        const response = await put(kid, { columns: [{ name: 'parent', type: 'text' }] });
        assert.equal(response.status, 200, response.text);
      }
      assert.equal((await server.request('DELETE', tableUrl('parents'), { headers: project.admin })).status, 204);
    });
  });

  describe('indexes', () => {
    const indexColumns = (table: string) => indexColumnsOf(server.built.services.config, project.id, table);
    const has = (all: string[][], columns: string[]) => all.some((c) => JSON.stringify(c) === JSON.stringify(columns));

    it('declared indexes exist in the database, in column order', async () => {
      const response = await put('indexed', {
        columns: [
          { name: 'a', type: 'text' },
          { name: 'b', type: 'integer', unique: true },
        ],
        indexes: [
          ['a', 'created_at'],
          ['b', 'a'],
        ],
      });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.data.indexes, [
        ['a', 'created_at'],
        ['b', 'a'],
      ]);
      const all = await indexColumns('indexed');
      assert.ok(has(all, ['a', 'created_at']), JSON.stringify(all));
      assert.ok(has(all, ['b', 'a']), JSON.stringify(all));
      assert.ok(has(all, ['b']), 'the unique column has its index');
    });

    it('an index removed from the definition is dropped; a new one is added', async () => {
      const response = await put('indexed', {
        columns: [
          { name: 'a', type: 'text' },
          { name: 'b', type: 'integer', unique: true },
        ],
        indexes: [['b']],
      });
      assert.equal(response.status, 200, response.text);
      const all = await indexColumns('indexed');
      assert.ok(!has(all, ['a', 'created_at']), JSON.stringify(all));
      assert.ok(!has(all, ['b', 'a']), JSON.stringify(all));
      assert.deepEqual(
        (await server.request('GET', tableUrl('indexed'), { headers: project.admin })).body.data.indexes,
        [['b']],
      );
    });
  });
});
