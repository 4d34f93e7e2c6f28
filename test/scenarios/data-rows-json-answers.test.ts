/**
 * Read answers are written by serialisers compiled per table (src/tables/row-json.ts): every
 * column type comes back as it was written (nulls, json documents of every kind, unicode and
 * escapes, the largest integers and finite numbers), in column order, with the list `meta`
 * and a selection of columns; an auth table's rows never carry the password; answers that
 * are not plain rows (expand, aggregates) keep their own keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

type Row = Record<string, unknown>;

const LONG_TEXT = `${'long "quoted" \\ text, '.repeat(300)}é`;

/** Values of the declared columns, one object per row; absent keys are read back as null. */
const WRITTEN: Row[] = [
  {
    label: 'plain',
    count: 42,
    ratio: 0.1,
    flag: true,
    due: '2026-01-31T09:30:00.000Z',
    doc: { a: [1, 2.5, null, true, 'x'], nested: { deep: { deeper: [] } }, empty: {} },
  },
  {
    label: 'quotes " and \\ backslash, tab\t newline\n, \u0001 control, \u2028 separator',
    count: Number.MAX_SAFE_INTEGER,
    ratio: Number.MAX_VALUE,
    flag: false,
    due: '1999-12-31T23:59:59.999Z',
    doc: ['an', 'array', { of: 'things' }, 9007199254740991, -1e-7],
  },
  {
    label: 'unicode: 日本語 émoji 😀 ünïcödé',
    count: -Number.MAX_SAFE_INTEGER,
    ratio: -5e-324,
    flag: true,
    due: '2026-06-01T00:00:00.000Z',
    doc: 'a json string "with quotes" 😀',
  },
  { label: LONG_TEXT, count: 0, ratio: 0, flag: false, doc: 12.75 },
  { label: '', count: 1, ratio: 1e21, doc: true },
  { label: null, count: null, ratio: null, flag: null, due: null, doc: null },
  {},
  { doc: { 'key with "quotes"': 'v', ключ: ['ü', '\\'], '': 0 } },
];

const DECLARED = ['label', 'count', 'ratio', 'flag', 'due', 'doc'];
const COLUMN_TYPES: Record<string, string> = {
  label: 'text',
  count: 'integer',
  ratio: 'number',
  flag: 'boolean',
  due: 'timestamp',
  doc: 'json',
};

describe('read answers: every column type comes back as written', () => {
  let server: TestServer;
  let project: TestProject;
  const get = (path: string) => server.request('GET', `/p/${project.id}/api/${path}`, { headers: project.admin });
  /** Rows as create answered them (JSON.stringify), in creation order. */
  const created: Row[] = [];

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'json-answers');
    await putTable(server, project, 'things', {
      columns: [
        { name: 'label', type: 'text' },
        { name: 'count', type: 'integer' },
        { name: 'ratio', type: 'number' },
        { name: 'flag', type: 'boolean' },
        { name: 'due', type: 'timestamp' },
        { name: 'doc', type: 'json' },
      ],
    });
    await putTable(server, project, 'members', { auth_table: true, columns: [{ name: 'nick', type: 'text' }] });
    for (const values of WRITTEN) {
      const response = await server.request('POST', `/p/${project.id}/api/things`, {
        headers: project.admin,
        body: values,
      });
      assert.equal(response.status, 201, response.text);
      created.push(response.body.data);
    }
  });
  after(() => server.close());

  it('the rows as created hold what was written (null where nothing was)', () => {
    for (const [index, values] of WRITTEN.entries()) {
      for (const name of DECLARED)
        assert.deepEqual(created[index]![name], name in values ? values[name] : null, `row ${index}, ${name}`);
    }
  });

  it('create and bulk answer the very text JSON.stringify writes for their rows (the event log stores)', async () => {
    // A table of its own: the tests below count the rows of "things".
    await putTable(server, project, 'copies', {
      columns: DECLARED.map((name) => ({ name, type: COLUMN_TYPES[name] })),
    });
    for (const values of WRITTEN) {
      const response = await server.request('POST', `/p/${project.id}/api/copies`, {
        headers: project.admin,
        body: values,
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.text, JSON.stringify(response.body));
    }
    const bulk = await server.request('POST', `/p/${project.id}/api/copies/bulk`, {
      headers: project.admin,
      body: WRITTEN,
    });
    assert.equal(bulk.status, 201, bulk.text);
    assert.equal(bulk.text, JSON.stringify(bulk.body));
  });

  it('GET by id answers each row exactly as written, keys in column order, as application/json', async () => {
    for (const [index, row] of created.entries()) {
      const response = await get(`things/${row.id}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(response.body, { data: row }, `row ${index}`);
      assert.deepEqual(Object.keys(response.body.data), ['id', 'created_at', 'updated_at', ...DECLARED]);
      for (const name of DECLARED)
        assert.deepEqual(
          response.body.data[name],
          name in WRITTEN[index]! ? WRITTEN[index]![name] : null,
          `row ${index}, ${name}`,
        );
    }
  });

  it('a list page answers the rows and meta exactly (with total, and count=none)', async () => {
    const response = await get('things?sort=created_at,id&limit=100');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(response.body, {
      data: created,
      meta: { total: created.length, limit: 100, offset: 0, next_cursor: null },
    });

    const paged = await get('things?sort=created_at,id&limit=3&offset=2&count=none');
    assert.equal(paged.status, 200, paged.text);
    assert.deepEqual(paged.body.data, created.slice(2, 5));
    assert.equal(paged.body.meta.total, null);
    assert.equal(paged.body.meta.limit, 3);
    assert.equal(paged.body.meta.offset, 2);
    assert.equal(typeof paged.body.meta.next_cursor, 'string');
  });

  it('the next_cursor of a page leads to the rest, answered the same way', async () => {
    const first = await get('things?sort=created_at,id&limit=5');
    const rest = await get(
      `things?sort=created_at,id&limit=5&after=${encodeURIComponent(first.body.meta.next_cursor)}`,
    );
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual([...first.body.data, ...rest.body.data], created);
    assert.equal(rest.body.meta.next_cursor, null);
  });

  it('select answers id and the selected columns, in column order', async () => {
    const response = await get('things?sort=created_at,id&select=doc,label');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.data,
      created.map((row) => ({ id: row.id, label: row.label, doc: row.doc })),
    );
  });

  it('limit=0 answers no rows and the total', async () => {
    const response = await get('things?limit=0');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      data: [],
      meta: { total: created.length, limit: 0, offset: 0, next_cursor: null },
    });
  });

  it('an aggregate answers its own keys (not the table columns)', async () => {
    const response = await get('things?select=flag,count()&sort=flag');
    assert.equal(response.status, 200, response.text);
    // Groups in order, null first; `count` is also a column of the table, with another meaning.
    assert.deepEqual(response.body.data, [
      { flag: null, count: 4 },
      { flag: false, count: 2 },
      { flag: true, count: 2 },
    ]);
  });

  it('expanded pages answer each expanded row as written: forward (row or null), reverse (list), nested', async () => {
    await putTable(server, project, 'notes', {
      columns: [
        { name: 'text', type: 'text' },
        { name: 'thing', type: 'text', references: { table: 'things', on_delete: 'cascade' } },
        { name: 'parent', type: 'text', references: { table: 'notes', on_delete: 'set_null' } },
      ],
    });
    const note = async (body: Row) => {
      const response = await server.request('POST', `/p/${project.id}/api/notes`, { headers: project.admin, body });
      assert.equal(response.status, 201, response.text);
      return response.body.data as Row;
    };
    const first = await note({ text: 'on the first thing 😀', thing: created[0]!.id });
    const second = await note({ text: 'on the second "thing"', thing: created[1]!.id, parent: first.id });
    const loose = await note({ text: null });

    const forward = await get(`notes?sort=created_at,id&expand=${encodeURIComponent('thing,parent.thing')}`);
    assert.equal(forward.status, 200, forward.text);
    assert.deepEqual(forward.body.data, [
      { ...first, expand: { thing: created[0], parent: null } },
      { ...second, expand: { thing: created[1], parent: { ...first, expand: { thing: created[0] } } } },
      { ...loose, expand: { thing: null, parent: null } },
    ]);

    const reverse = await get(`things?sort=created_at,id&limit=3&expand=${encodeURIComponent('notes(thing)')}`);
    assert.equal(reverse.status, 200, reverse.text);
    assert.deepEqual(reverse.body.data, [
      { ...created[0], expand: { 'notes(thing)': [first] } },
      { ...created[1], expand: { 'notes(thing)': [second] } },
      { ...created[2], expand: { 'notes(thing)': [] } },
    ]);
    assert.equal(typeof reverse.body.meta.next_cursor, 'string');
  });

  it("an auth table's rows carry email and email_verified, never the password", async () => {
    const made = await server.request('POST', `/p/${project.id}/api/members`, {
      headers: project.admin,
      body: { email: 'Ada@Example.com', password: 'correct horse battery', nick: 'ädä' },
    });
    assert.equal(made.status, 201, made.text);
    const one = await get(`members/${made.body.data.id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(Object.keys(one.body.data), ['id', 'created_at', 'updated_at', 'email', 'email_verified', 'nick']);
    assert.equal(one.body.data.email, 'ada@example.com');
    assert.equal(one.body.data.email_verified, false);
    assert.equal(one.body.data.nick, 'ädä');
    assert.doesNotMatch(one.text, /password/);
    const list = await get('members');
    assert.deepEqual(list.body.data, [one.body.data]);
    assert.doesNotMatch(list.text, /password/);
  });
});
