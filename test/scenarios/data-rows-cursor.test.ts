/**
 * Cursor paging (contract §13): `meta.next_cursor` on every list, `after=` continues under the
 * same sort and filter, keyset order agrees with offset paging for every sort (ties, nulls,
 * descending, sort keys left out of select), and refused cursors: tampered, foreign (another
 * sort, filter, table or project), or combined with offset.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import {
  createProject,
  putTable,
  startTestServer,
  TestClock,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

interface Item {
  id: string;
  [column: string]: unknown;
}

describe('cursor paging: GET /p/{id}/api/{table}?after=', () => {
  let server: TestServer;
  let project: TestProject;
  let other: TestProject;
  const clock = new TestClock(Date.parse('2026-03-01T00:00:00.000Z'));
  const q = (text: string) => encodeURIComponent(text);
  const list = (path: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/${path}`, { headers: headers ?? project.admin });

  /** Walks every page of `query` with cursors; returns the ids in order and the number of pages. */
  async function walk(table: string, query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(`${table}?limit=${limit}${query}${cursor === null ? '' : `&after=${q(cursor)}`}`);
      assert.equal(response.status, 200, response.text);
      pages++;
      ids.push(...response.body.data.map((row: Item) => row.id));
      cursor = response.body.meta.next_cursor;
      assert.ok(pages < 100, 'cursor paging must end');
    } while (cursor !== null);
    return { ids, pages };
  }

  before(async () => {
    server = await startTestServer({}, { clock });
    project = await createProject(server, 'cursor-rows');
    other = await createProject(server, 'cursor-other');
    const definition = {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'integer' },
        { name: 'score', type: 'number' },
        { name: 'done', type: 'boolean' },
        { name: 'due', type: 'timestamp' },
      ],
      rules: { list: 'done = false' },
    };
    await putTable(server, project, 'items', definition);
    await putTable(server, project, 'others', definition);
    await putTable(server, other, 'items', definition);
    const rows = Array.from({ length: 37 }, (_, i) => ({
      // Many ties (n repeats, score is often null), mixed case and nulls in text.
      title: i % 7 === 0 ? null : ['b', 'A', 'a', 'B', 'c'][i % 5],
      n: i % 4,
      score: i % 3 === 0 ? null : (i % 5) * 0.5,
      done: i % 6 === 0,
      due: i % 5 === 0 ? null : new Date(Date.UTC(2026, 0, 1 + (i % 9))).toISOString(),
    }));
    for (const row of rows) {
      clock.advance(1);
      assert.equal(
        (await server.request('POST', `/p/${project.id}/api/items`, { headers: project.admin, body: row })).status,
        201,
      );
    }
    assert.equal(
      (await server.request('POST', `/p/${project.id}/api/others/bulk`, { headers: project.admin, body: rows })).status,
      201,
    );
    assert.equal(
      (await server.request('POST', `/p/${other.id}/api/items/bulk`, { headers: other.admin, body: rows })).status,
      201,
    );
  });
  after(() => server.close());

  it('every list answer carries meta.next_cursor: a string while rows follow, null on the last page', async () => {
    const first = await list('items?limit=10');
    assert.deepEqual(Object.keys(first.body.meta).sort(), ['limit', 'next_cursor', 'offset', 'total']);
    assert.equal(typeof first.body.meta.next_cursor, 'string');
    assert.equal((await list('items?limit=37')).body.meta.next_cursor, null, 'exactly one full page: no next page');
    assert.equal((await list('items?limit=36')).body.meta.next_cursor === null, false);
    assert.equal((await list('items?limit=0')).body.meta.next_cursor, null);
    assert.equal((await list('items?filter=n%20%3D%2099')).body.meta.next_cursor, null);
  });

  const orders: [string, string][] = [
    ['creation order', ''],
    ['a text column with ties and nulls', '&sort=title'],
    ['descending text with nulls', '&sort=-title'],
    ['integer ties then number with nulls', '&sort=n,-score'],
    ['timestamp with nulls, descending', '&sort=-due'],
    ['boolean then title', '&sort=done,title'],
    ['descending id', '&sort=-id'],
    ['a filter and sort keys left out of select', `&sort=-score,title&select=n&filter=${q('n != 2')}`],
    ['a shorthand filter', '&sort=score&n=lt.3'],
  ];
  for (const [name, query] of orders) {
    it(`walking with after gives the same rows as one big page: ${name}`, async () => {
      const whole = await list(`items?limit=1000${query}`);
      assert.equal(whole.status, 200, whole.text);
      const expected = whole.body.data.map((row: Item) => row.id);
      for (const limit of [1, 4, 7]) {
        const { ids, pages } = await walk('items', query, limit);
        assert.deepEqual(ids, expected, `limit ${limit}`);
        assert.equal(pages, Math.max(1, Math.ceil(expected.length / limit)), `limit ${limit}: no empty last page`);
      }
    });
  }

  // One bulk write: every row shares created_at, so a cursor lands inside a tie. Keys that are all
  // never-null and run one way compile to a row-value comparison `(created_at, id) > (?, ?)`.
  const bulkOrders: [string, string][] = [
    ['creation order', ''],
    ['both keys descending', '&sort=-created_at,-id'],
    ['mixed directions', '&sort=-created_at,id'],
  ];
  for (const [name, query] of bulkOrders) {
    it(`walking a bulk-written table (one created_at for all rows) with after: ${name}`, async () => {
      const whole = await list(`others?limit=1000${query}`);
      assert.equal(whole.status, 200, whole.text);
      const expected = whole.body.data.map((row: Item) => row.id);
      assert.equal(
        new Set(whole.body.data.map((row: Item) => row.created_at)).size,
        1,
        'the bulk rows share created_at',
      );
      for (const limit of [1, 5]) {
        const { ids } = await walk('others', query, limit);
        assert.deepEqual(ids, expected, `limit ${limit}`);
      }
    });
  }

  it('select keeps only the selected columns even though the cursor reads the sort keys', async () => {
    const response = await list('items?limit=3&sort=-due&select=title');
    assert.deepEqual(
      response.body.data.map((row: Item) => Object.keys(row).sort()),
      [
        ['id', 'title'],
        ['id', 'title'],
        ['id', 'title'],
      ],
    );
  });

  it('the list rule applies on every page (done = false rows only), and total counts the visible rows', async () => {
    const { ids } = await walk('items', '', 5);
    const visible = (await list('items?limit=1000&filter=done%20%3D%20false')).body.data.map((row: Item) => row.id);
    assert.deepEqual(ids.length, 37);
    const anon = await server.request('GET', `/p/${project.id}/api/items?limit=5`, { headers: project.anon });
    assert.equal(anon.status, 200, anon.text);
    let cursor = anon.body.meta.next_cursor;
    const seen = anon.body.data.map((row: Item) => row.id);
    while (cursor !== null) {
      const next = await server.request('GET', `/p/${project.id}/api/items?limit=5&after=${q(cursor)}`, {
        headers: project.anon,
      });
      seen.push(...next.body.data.map((row: Item) => row.id));
      assert.equal(next.body.meta.total, visible.length);
      cursor = next.body.meta.next_cursor;
    }
    assert.deepEqual(seen, visible);
  });

  it('a filter with @now keeps its cursors valid from one request to the next', async () => {
    const filter = `&filter=${q('due < @now || due = null')}`;
    const first = await list(`items?limit=5${filter}`);
    clock.advance(5);
    const second = await list(`items?limit=5${filter}&after=${q(first.body.meta.next_cursor)}`);
    assert.equal(second.status, 200, second.text);
  });

  describe('refused cursors: 400 VALIDATION_FILTER naming after', () => {
    let cursor: string;
    before(async () => {
      cursor = (await list(`items?limit=5&sort=title&filter=${q('n > 0')}`)).body.meta.next_cursor;
    });
    const same = `sort=title&filter=${q('n > 0')}`;
    const cases: [string, () => string][] = [
      ['combined with offset', () => `items?${same}&offset=5&after=${q(cursor)}`],
      ['combined with offset=0', () => `items?${same}&offset=0&after=${q(cursor)}`],
      ['another sort', () => `items?sort=-title&filter=${q('n > 0')}&after=${q(cursor)}`],
      ['no sort (creation order)', () => `items?filter=${q('n > 0')}&after=${q(cursor)}`],
      ['another filter', () => `items?sort=title&filter=${q('n > 1')}&after=${q(cursor)}`],
      ['an added shorthand filter', () => `items?${same}&done=is.false&after=${q(cursor)}`],
      ['another table', () => `others?${same}&after=${q(cursor)}`],
      ['a payload edited by one character', () => `items?${same}&after=${q(flip(cursor, 3))}`],
      ['a signature edited by one character', () => `items?${same}&after=${q(flip(cursor, cursor.length - 2))}`],
      ['a payload re-encoded with other key values', () => `items?${same}&after=${q(reencoded(cursor))}`],
      ['garbage', () => `items?${same}&after=not-a-cursor`],
    ];
    for (const [name, path] of cases) {
      it(name, async () => {
        const response = await list(path());
        assertError(response, 400, 'VALIDATION_FILTER');
        assert.match(response.body.error.message, /^after: /);
        assert.match(response.body.error.suggestion, /next_cursor/);
      });
    }
    it('another project', async () => {
      assertError(
        await server.request('GET', `/p/${other.id}/api/items?${same}&after=${q(cursor)}`, { headers: other.admin }),
        400,
        'VALIDATION_FILTER',
      );
    });
    it('the same cursor with the same sort and filter still works', async () => {
      assert.equal((await list(`items?${same}&after=${q(cursor)}`)).status, 200);
    });
  });

  it('a bearer user pages with cursors on an auth project too', async () => {
    const auth = await createAuthProject(server, { rules: { list: 'id = @request.auth.id' } });
    const user = await signUp(server, auth, 'cursor@example.com');
    const page = await server.request('GET', `/p/${auth.id}/api/users?limit=1`, { headers: bearer(user.token) });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.meta.next_cursor, null);
  });
});

function flip(text: string, index: number): string {
  const swapped = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + swapped + text.slice(index + 1);
}

function reencoded(cursor: string): string {
  const [body, signature] = cursor.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
  payload.k[0] = 'zzz';
  return `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}
