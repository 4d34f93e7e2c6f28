/**
 * Full-text search (contract §18): `search` columns declared through the schema API, kept in
 * step with every write, `GET /p/{id}/api/{table}?search=` with words, "phrases", -exclusions
 * and or, ranked unless sorted, ANDed with filter and the list rule, paged with cursors; bad
 * queries answered with VALIDATION_FILTER; the index follows column and table changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

interface Row {
  id: string;
  title: string | null;
  body: string | null;
  [column: string]: unknown;
}

describe('full-text search: GET /p/{id}/api/{table}?search=', () => {
  let server: TestServer;
  let project: TestProject;
  const ids = new Map<string, string>();
  const q = encodeURIComponent;
  const list = (path: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/${path}`, { headers: headers ?? project.admin });
  const found = async (query: string, extra = '') => {
    const response = await list(`notes?search=${q(query)}${extra}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((row: Row) => row.title) as string[];
  };
  const sorted = async (query: string, extra = '') => (await found(query, extra)).sort();

  const notes: Record<string, string | null>[] = [
    { title: 'Green tea', body: 'A cup of green tea in the morning', kind: 'drink' },
    { title: 'Black tea', body: 'Strong and dark; no green here', kind: 'drink' },
    { title: 'Café au lait', body: 'Coffee with milk, Crème fraîche aside', kind: 'drink' },
    { title: 'Apple pie', body: 'Apples, sugar and CINNAMON', kind: 'food' },
    { title: 'Tea cake', body: null, kind: 'food' },
    { title: 'Split phrase green', body: 'tea starts the body', kind: 'food' },
  ];

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'search-rows');
    await putTable(server, project, 'notes', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'text' },
        { name: 'kind', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
      search: ['title', 'body'],
      rules: { list: 'kind = "drink"' },
    });
    await putTable(server, project, 'plain', { columns: [{ name: 'title', type: 'text' }] });
    const response = await server.request('POST', `/p/${project.id}/api/notes/bulk`, {
      headers: project.admin,
      body: notes,
    });
    assert.equal(response.status, 201, response.text);
    for (const row of response.body.data as Row[]) ids.set(row.title!, row.id);
  });
  after(() => server.close());

  it('the schema API answers the search columns back', async () => {
    const response = await server.request('GET', `/p/${project.id}/v1/tables/notes`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.search, ['title', 'body']);
    const plain = await server.request('GET', `/p/${project.id}/v1/tables/plain`, { headers: project.admin });
    assert.equal('search' in plain.body.data, false, 'a table without search keeps its shape');
  });

  it('the OpenAPI document describes search= on tables with search columns only', async () => {
    const response = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    const names = (table: string) =>
      response.body.paths[`/api/${table}`].get.parameters.map((p: { name: string }) => p.name) as string[];
    const search = response.body.paths['/api/notes'].get.parameters.find((p: { name: string }) => p.name === 'search');
    assert.match(search.description, /title, body/);
    assert.equal(names('plain').includes('search'), false);
  });

  const cases: [string, string, string[]][] = [
    ['one word, any column', 'tea', ['Black tea', 'Green tea', 'Split phrase green', 'Tea cake']],
    ['case-insensitive', 'CINNAMON apples', ['Apple pie']],
    ['words are ANDed', 'green tea', ['Black tea', 'Green tea', 'Split phrase green']],
    ['a phrase stays within one column', '"green tea"', ['Green tea']],
    ['an exclusion', 'tea -green', ['Tea cake']],
    ['or', 'cinnamon or milk', ['Apple pie', 'Café au lait']],
    ['accents folded both ways', 'cafe creme', ['Café au lait']],
    ['accents folded in the query', 'FRAÎCHE', ['Café au lait']],
    ['no stemming', 'apple', ['Apple pie']],
    ['no match', 'banana', []],
    ['FTS syntax is plain text', 'tea* & ^green | :', ['Black tea', 'Green tea', 'Split phrase green']],
    ['NEAR is a plain word', 'NEAR(green tea)', []],
    ['a column name is a plain word', 'title:tea', []],
  ];
  for (const [name, query, titles] of cases)
    it(`${name}: search=${query}`, async () => {
      assert.deepEqual(await sorted(query), titles);
    });

  it('ranks the most relevant row first without sort', async () => {
    const titles = await found('green');
    assert.equal(titles[0], 'Green tea', `most relevant first: ${titles}`);
    assert.equal(titles.length, 3);
  });

  it('sort orders the matches instead of relevance', async () => {
    assert.deepEqual(await found('tea', '&sort=title'), ['Black tea', 'Green tea', 'Split phrase green', 'Tea cake']);
    assert.deepEqual(await found('tea', '&sort=-title'), ['Tea cake', 'Split phrase green', 'Green tea', 'Black tea']);
  });

  it('is ANDed with filter and shorthand filters, and counted', async () => {
    const response = await list(`notes?search=tea&filter=${q('kind = "food"')}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.map((r: Row) => r.title).sort(), ['Split phrase green', 'Tea cake']);
    assert.equal(response.body.meta.total, 2);
    assert.deepEqual(await sorted('tea', '&kind=eq.drink'), ['Black tea', 'Green tea']);
  });

  it('is ANDed with the list rule for other callers', async () => {
    const response = await list('notes?search=tea', project.anon);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.map((r: Row) => r.title).sort(), ['Black tea', 'Green tea']);
    assert.equal(response.body.meta.total, 2);
  });

  for (const order of ['', '&sort=-title'])
    it(`pages with cursors and offsets alike${order || ' (ranked)'}`, async () => {
      const all = await found('tea', order);
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await list(`notes?search=tea&limit=1${order}${cursor === null ? '' : `&after=${q(cursor)}`}`);
        assert.equal(response.status, 200, response.text);
        walked.push(...response.body.data.map((row: Row) => row.title));
        assert.equal(response.body.meta.total, all.length, 'every page counts every match');
        cursor = response.body.meta.next_cursor;
        assert.ok(walked.length <= all.length, 'paging ends');
      } while (cursor !== null);
      assert.deepEqual(walked, all);
      const second = await list(`notes?search=tea&limit=1&offset=1${order}`);
      assert.deepEqual(
        second.body.data.map((r: Row) => r.title),
        [all[1]],
      );
      assert.equal(second.body.meta.total, all.length);
      const past = await list(`notes?search=tea&limit=2&offset=${all.length}${order}`);
      assert.deepEqual(past.body.data, []);
      assert.equal(past.body.meta.total, all.length, 'a page past the end still counts the matches');
      const none = await list(`notes?search=nosuchword&limit=2${order}`);
      assert.deepEqual([none.body.data, none.body.meta.total], [[], 0]);
    });

  it('a cursor is bound to its search', async () => {
    const first = await list('notes?search=tea&limit=1');
    const cursor = first.body.meta.next_cursor as string;
    assertError(await list(`notes?search=green&limit=1&after=${q(cursor)}`), 400, 'VALIDATION_FILTER');
  });

  it('follows every write: insert, update, delete', async () => {
    const created = await server.request('POST', `/p/${project.id}/api/notes`, {
      headers: project.admin,
      body: { title: 'Oolong', body: 'rare leaves', kind: 'drink' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await sorted('leaves'), ['Oolong']);
    const patched = await server.request('PATCH', `/p/${project.id}/api/notes/${created.body.data.id}`, {
      headers: project.admin,
      body: { body: 'roasted' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await sorted('leaves'), []);
    assert.deepEqual(await sorted('roasted'), ['Oolong']);
    const other = await server.request('PATCH', `/p/${project.id}/api/notes/${created.body.data.id}`, {
      headers: project.admin,
      body: { n: 3 },
    });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(await sorted('roasted'), ['Oolong']);
    const deleted = await server.request('DELETE', `/p/${project.id}/api/notes/${created.body.data.id}`, {
      headers: project.admin,
    });
    assert.equal(deleted.status, 204, deleted.text);
    assert.deepEqual(await sorted('roasted'), []);
  });

  const bad: [string, string][] = [
    ['a 10 KB query', 'tea '.repeat(2560)],
    ['only stop characters', '!!! ... --- ***'],
    ['only exclusions', '-tea -green'],
    ['a control character', 'tea\u0007'],
    ['a NUL character', 'tea\u0000green'],
  ];
  for (const [name, query] of bad)
    it(`${name} → 400 VALIDATION_FILTER`, async () => {
      assertError(await list(`notes?search=${q(query)}`), 400, 'VALIDATION_FILTER');
    });

  it('a search column holds at most 128 KiB here (256 KiB shared by 2 columns), on both engines', async () => {
    // Distinct short words: what makes a search index largest for its text.
    const words = (bytes: number) => {
      let text = '';
      for (let i = 0; text.length < bytes; i++) text += `w${i.toString(36)} `;
      return text.slice(0, bytes);
    };
    const post = (title: string) =>
      server.request('POST', `/p/${project.id}/api/notes`, { headers: project.admin, body: { title, kind: 'food' } });
    const fits = await post(words(128 * 1024));
    assert.equal(fits.status, 201, fits.text.slice(0, 300));
    assertError(await post(words(128 * 1024 + 1)), 400, 'VALIDATION_FAILED');
    const removed = await server.request('DELETE', `/p/${project.id}/api/notes/${fits.body.data.id}`, {
      headers: project.admin,
    });
    assert.equal(removed.status, 204);
  });

  it('unbalanced quotes are plain: the phrase runs to the end', async () => {
    assert.deepEqual(await sorted('"green tea'), ['Green tea']);
  });

  it('search given twice → 400 VALIDATION_FILTER', async () => {
    assertError(await list('notes?search=tea&search=green'), 400, 'VALIDATION_FILTER');
  });

  it('an empty search is no search', async () => {
    const response = await list('notes?search=');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.length, notes.length);
  });

  it('search on a table without declared columns → 400 VALIDATION_FILTER', async () => {
    assertError(await list('plain?search=tea'), 400, 'VALIDATION_FILTER');
  });

  it('a column named search keeps its shorthand filter on a table without search columns', async () => {
    await putTable(server, project, 'tagged', { columns: [{ name: 'search', type: 'text' }] });
    const response = await list('tagged?search=eq.x');
    assert.equal(response.status, 200, response.text);
  });

  it('refuses search columns that are not text columns of the table', async () => {
    for (const search of [['n'], ['missing'], ['title', 'title'], 'title']) {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/bad_search`, {
        headers: project.admin,
        body: {
          columns: [
            { name: 'title', type: 'text' },
            { name: 'n', type: 'integer' },
          ],
          search,
        },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
    }
  });

  it('adding, changing and removing search on a table with rows, and dropping a searched column', async () => {
    const path = `/p/${project.id}/v1/tables/later`;
    const put = (body: unknown, query = '') =>
      server.request('PUT', `${path}${query}`, { headers: project.admin, body });
    const columns = [
      { name: 'a', type: 'text' },
      { name: 'b', type: 'text' },
    ];
    assert.equal((await put({ columns, rules: { list: '' } })).status, 201);
    const rows = [
      { a: 'alpha', b: 'beta' },
      { a: 'gamma', b: 'alpha' },
    ];
    assert.equal(
      (await server.request('POST', `/p/${project.id}/api/later/bulk`, { headers: project.admin, body: rows })).status,
      201,
    );
    const search = async (word: string) => {
      const response = await list(`later?search=${word}`);
      return response.status === 200 ? response.body.data.map((r: Row) => r.a).sort() : response.body.error.code;
    };
    assert.equal(await search('alpha'), 'VALIDATION_FILTER');
    assert.equal((await put({ columns, rules: { list: '' }, search: ['a'] })).status, 200);
    assert.deepEqual(await search('alpha'), ['alpha'], 'rows already there are indexed');
    const patch = await server.request('PATCH', path, { headers: project.admin, body: { search: ['a', 'b'] } });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(await search('alpha'), ['alpha', 'gamma']);
    // Dropping a searched column (a rebuild on SQLite) keeps the index in step.
    const dropped = await put({ columns: [columns[0]], rules: { list: '' }, search: ['a'] }, '?allow_destructive=true');
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(await search('alpha'), ['alpha']);
    assert.deepEqual(await search('gamma'), ['gamma']);
    const off = await server.request('PATCH', path, { headers: project.admin, body: { search: [] } });
    assert.equal(off.status, 200, off.text);
    assert.equal(await search('alpha'), 'VALIDATION_FILTER');
    const gone = await server.request('DELETE', path, { headers: project.admin });
    assert.equal(gone.status, 204);
    assert.equal((await put({ columns, rules: { list: '' }, search: ['b'] })).status, 201, 'the name is free again');
    assert.deepEqual(await search('alpha'), []);
  });

  it('an auth table may search its declared columns; a bearer sees what its rule lets it', async () => {
    const auth = await createAuthProject(server, {
      columns: [{ name: 'name', type: 'text' }],
      rules: { list: 'id = @request.auth.id' },
    });
    const patch = await server.request('PATCH', `/p/${auth.id}/v1/tables/users`, {
      headers: auth.admin,
      body: { search: ['name'] },
    });
    assert.equal(patch.status, 200, patch.text);
    const ada = await signUp(server, auth, 'ada@example.com', { name: 'Ada Lovelace' });
    await signUp(server, auth, 'alan@example.com', { name: 'Alan Lovelace' });
    const response = await server.request('GET', `/p/${auth.id}/api/users?search=lovelace`, {
      headers: bearer(ada.token),
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.data.map((r: Row) => r.name),
      ['Ada Lovelace'],
    );
  });
});
