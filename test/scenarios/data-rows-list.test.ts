/**
 * The data API's list endpoint (contract §6): paging, counting, sort, select, the filter
 * language and shorthand filters, over real HTTP with the admin key.
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

interface Task {
  id: string;
  title: string;
  n: number;
  score: number | null;
  done: boolean;
  due: string | null;
  meta: unknown;
  created_at: string;
}

const START = Date.parse('2026-01-06T12:00:00.000Z');

describe('GET /p/{id}/api/{table}', () => {
  let server: TestServer;
  let project: TestProject;
  const tasks: Task[] = [];
  const clock = new TestClock(START);

  const list = (query: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/tasks${query}`, { headers: headers ?? project.admin });
  const ids = (body: { data: Task[] }) => body.data.map((row) => row.id);
  const q = (text: string) => encodeURIComponent(text);

  before(async () => {
    server = await startTestServer({}, { clock });
    project = await createProject(server, 'list-rows');
    await putTable(server, project, 'tasks', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'integer' },
        { name: 'score', type: 'number' },
        { name: 'done', type: 'boolean' },
        { name: 'due', type: 'timestamp' },
        { name: 'meta', type: 'json' },
      ],
    });
    for (let i = 0; i < 12; i++) {
      clock.advance(1); // distinct created_at: creation order is observable
      const body = {
        title: i % 4 === 0 ? `URGENT task ${i}` : `task ${i}`,
        n: i,
        score: i === 11 ? null : i * 1.5,
        done: i % 3 === 0,
        due: i === 10 ? null : `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
        meta: { i },
      };
      const response = await server.request('POST', `/p/${project.id}/api/tasks`, { headers: project.admin, body });
      assert.equal(response.status, 201, response.text);
      tasks.push(response.body.data);
    }
  });
  after(() => server.close());

  describe('paging and counting', () => {
    const cases: [string, string, { total: number | null; limit: number; offset: number }, number[]][] = [
      ['defaults', '', { total: 12, limit: 50, offset: 0 }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
      ['limit=5', '?limit=5', { total: 12, limit: 5, offset: 0 }, [0, 1, 2, 3, 4]],
      ['limit=5&offset=5', '?limit=5&offset=5', { total: 12, limit: 5, offset: 5 }, [5, 6, 7, 8, 9]],
      ['last partial page', '?limit=5&offset=10', { total: 12, limit: 5, offset: 10 }, [10, 11]],
      ['offset exactly at the end', '?offset=12', { total: 12, limit: 50, offset: 12 }, []],
      ['offset past the end', '?offset=500', { total: 12, limit: 50, offset: 500 }, []],
      ['limit=0 counts without rows', '?limit=0', { total: 12, limit: 0, offset: 0 }, []],
      [
        'limit=1000 is allowed',
        '?limit=1000',
        { total: 12, limit: 1000, offset: 0 },
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      ],
      [
        'limit=5000 is clamped to 1000',
        '?limit=5000',
        { total: 12, limit: 1000, offset: 0 },
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      ],
      ['count=none', '?count=none&limit=2', { total: null, limit: 2, offset: 0 }, [0, 1]],
      ['count=none past the end', '?count=none&offset=20', { total: null, limit: 50, offset: 20 }, []],
      [
        'total counts under the filter',
        `?limit=2&filter=${q('done = true')}`,
        { total: 4, limit: 2, offset: 0 },
        [0, 3],
      ],
    ];
    for (const [label, query, meta, expected] of cases) {
      it(`${label} → meta ${JSON.stringify(meta)}`, async () => {
        const response = await list(query);
        assert.equal(response.status, 200, response.text);
        const { next_cursor: nextCursor, ...rest } = response.body.meta;
        assert.deepEqual(rest, meta);
        // next_cursor (contract §13): a string exactly when rows follow this page.
        const more = meta.limit > 0 && expected.length === meta.limit && (expected.at(-1) ?? 11) < 11;
        assert.equal(typeof nextCursor === 'string', more, `next_cursor ${JSON.stringify(nextCursor)}`);
        if (!more) assert.equal(nextCursor, null);
        assert.deepEqual(
          ids(response.body),
          expected.map((i) => tasks[i]!.id),
        );
      });
    }

    const refused: [string, string][] = [
      ['negative limit', '?limit=-1'],
      ['non-numeric limit', '?limit=ten'],
      ['fractional limit', '?limit=2.5'],
      ['empty limit', '?limit='],
      ['negative offset', '?offset=-3'],
      ['non-numeric offset', '?offset=abc'],
      ['hex offset', '?offset=0x10'],
      ['unknown count mode', '?count=estimated'],
      ['limit given twice', '?limit=1&limit=2'],
    ];
    for (const [label, query] of refused) {
      it(`${label} (${query}) → 400 VALIDATION_FILTER`, async () => {
        assertError(await list(query), 400, 'VALIDATION_FILTER');
      });
    }
  });

  describe('sort and select', () => {
    const expectOrder = (compare: (a: Task, b: Task) => number) =>
      [...tasks].sort((a, b) => compare(a, b) || (a.id < b.id ? -1 : 1)).map((t) => t.id);

    it('sort=-n returns descending order', async () => {
      const response = await list('?sort=-n');
      assert.deepEqual(
        ids(response.body),
        [...tasks].reverse().map((t) => t.id),
      );
    });
    it('sort=done,-score: ties broken by the next key, then id', async () => {
      const response = await list('?sort=done,-score');
      assert.equal(response.status, 200, response.text);
      const key = (t: Task) => (t.score === null ? Number.NEGATIVE_INFINITY : t.score);
      // Nulls sort as the smallest value: last in descending order.
      assert.deepEqual(
        ids(response.body),
        expectOrder((a, b) => Number(a.done) - Number(b.done) || key(b) - key(a)),
      );
    });
    it('sort=done alone: ties come in id order (stable)', async () => {
      const response = await list('?sort=done');
      assert.deepEqual(
        ids(response.body),
        expectOrder((a, b) => Number(a.done) - Number(b.done)),
      );
    });
    it('sort=-created_at,title', async () => {
      const response = await list('?sort=-created_at,title&limit=3');
      assert.deepEqual(
        ids(response.body),
        [11, 10, 9].map((i) => tasks[i]!.id),
      );
    });
    it('paging over a sort with ties never repeats or skips a row', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 12; offset += 5)
        seen.push(...ids((await list(`?sort=done&limit=5&offset=${offset}`)).body));
      assert.deepEqual(
        seen,
        expectOrder((a, b) => Number(a.done) - Number(b.done)),
      );
    });

    const badSorts: [string, string][] = [
      ['unknown column', 'sort=nope'],
      ['json column', 'sort=meta'],
      ['empty item', 'sort=n,,title'],
      ['a lone minus', 'sort=-'],
    ];
    for (const [label, query] of badSorts) {
      it(`sort with ${label} → 400 VALIDATION_FILTER listing columns`, async () => {
        const response = await list(`?${query}`);
        assertError(response, 400, 'VALIDATION_FILTER');
        assert.match(response.body.error.message, /sort/);
      });
    }
    it('the unknown-sort suggestion lists the sortable columns', async () => {
      const response = await list('?sort=nope');
      for (const column of ['title', 'n', 'created_at'])
        assert.ok(response.body.error.suggestion.includes(column), response.body.error.suggestion);
    });

    it('select=title returns id and title only', async () => {
      const response = await list('?select=title&limit=2');
      assert.equal(response.status, 200, response.text);
      for (const row of response.body.data) assert.deepEqual(Object.keys(row).sort(), ['id', 'title']);
    });
    it('select=meta,done,created_at keeps id first', async () => {
      const response = await list('?select=meta,done,created_at&limit=1');
      assert.deepEqual(Object.keys(response.body.data[0]).sort(), ['created_at', 'done', 'id', 'meta']);
      assert.deepEqual(response.body.data[0].meta, { i: 0 });
    });
    it('select with an unknown column → 400 VALIDATION_FILTER naming it', async () => {
      const response = await list('?select=title,nope');
      assertError(response, 400, 'VALIDATION_FILTER');
      assertMessageIncludes(response, 'nope');
      assert.ok(response.body.error.suggestion.includes('title'), response.body.error.suggestion);
    });
  });

  describe('filter', () => {
    const pick = (predicate: (t: Task) => boolean) => tasks.filter(predicate).map((t) => t.id);
    const cases: [string, (t: Task) => boolean][] = [
      ['n = 3', (t) => t.n === 3],
      ['n != 3', (t) => t.n !== 3],
      ['n > 8', (t) => t.n > 8],
      ['n >= 8 && n <= 9', (t) => t.n >= 8 && t.n <= 9],
      ['n < 2 || n > 10', (t) => t.n < 2 || t.n > 10],
      ['!(n < 10)', (t) => !(t.n < 10)],
      ['done = true', (t) => t.done],
      ['done = false && n < 4', (t) => !t.done && t.n < 4],
      ['title ~ "urgent"', (t) => /urgent/i.test(t.title)],
      ["title ~ 'URGENT'", (t) => /urgent/i.test(t.title)],
      ['title !~ "urgent"', (t) => !/urgent/i.test(t.title)],
      ['title = "task 5"', (t) => t.title === 'task 5'],
      ['score = null', (t) => t.score === null],
      ['score != null && score > 10', (t) => t.score !== null && t.score > 10],
      ['score >= 1.5e1', (t) => t.score !== null && t.score >= 15],
      ['due < @now', (t) => t.due !== null && Date.parse(t.due) < Date.parse('2026-01-06T12:00:00Z')],
      ['due >= "2026-01-10"', (t) => t.due !== null && t.due >= '2026-01-10'],
      ['due = null', (t) => t.due === null],
      [
        '(done = false && due < @now) || title ~ "urgent"',
        (t) => (!t.done && t.due !== null && t.due < '2026-01-06T12') || /urgent/i.test(t.title),
      ],
      ['created_at > "2026-01-06T12:00:06Z"', (t) => t.created_at > '2026-01-06T12:00:06.000Z'],
      [`id = "${'ID0'}"`, () => false],
      ['   ', () => true],
    ];
    for (const [filter, predicate] of cases) {
      it(`filter=${filter}`, async () => {
        const response = await list(`?limit=100&filter=${q(filter)}`);
        assert.equal(response.status, 200, response.text);
        const expected = pick(predicate);
        assert.deepEqual(ids(response.body), expected);
        assert.equal(response.body.meta.total, expected.length);
      });
    }
    it('filter on id', async () => {
      const response = await list(`?filter=${q(`id = "${tasks[4]!.id}"`)}`);
      assert.deepEqual(ids(response.body), [tasks[4]!.id]);
    });

    const refused: [string, string, RegExp][] = [
      ['unknown column', 'nope = 1', /nope.*character 1/],
      ['unknown column later on', 'n = 1 && nope = 2', /character 10/],
      ['missing operand', 'n = ', /character/],
      ['unknown operator', 'n == 1', /character 3/],
      ['unbalanced parenthesis', '(n = 1', /character/],
      ['unterminated string', 'title = "abc', /character 9/],
      ['wrong literal type', 'n = "abc"', /character/],
      ['a bare word', 'urgent', /after "urgent" at character 7/],
      ['a value on the right of ~ that is not a string', 'title ~ 3', /character/],
      ['password is not a column here', 'password = "x"', /character 1/],
      ['an unknown variable', 'due < @yesterday', /character 7/],
    ];
    for (const [label, filter, position] of refused) {
      it(`${label}: filter=${filter} → 400 VALIDATION_FILTER naming the position, columns suggested`, async () => {
        const response = await list(`?filter=${q(filter)}`);
        assertError(response, 400, 'VALIDATION_FILTER');
        assert.match(response.body.error.message, position);
        for (const column of ['title', 'done', 'due'])
          assert.ok(
            response.body.error.suggestion.includes(column),
            `suggestion lists ${column}: ${response.body.error.suggestion}`,
          );
      });
    }
    it('a filter over 4096 characters → 400 VALIDATION_FILTER', async () => {
      const long = Array(600).fill('n = 1').join('||');
      assert.ok(long.length > 4096, `the filter has ${long.length} characters`);
      assertError(await list(`?filter=${q(long)}`), 400, 'VALIDATION_FILTER');
    });
    it('deep nesting → 400 VALIDATION_FILTER, not a crash', async () => {
      assertError(await list(`?filter=${q(`${'('.repeat(200)}n = 1${')'.repeat(200)}`)}`), 400, 'VALIDATION_FILTER');
    });
    it('values are bound, never spliced: an injection attempt is just a string', async () => {
      const response = await list(`?filter=${q(`title = "x' OR 1=1 --"`)}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.meta.total, 0);
    });
  });

  describe('shorthand filters', () => {
    const pick = (predicate: (t: Task) => boolean) => tasks.filter(predicate).map((t) => t.id);
    const cases: [string, (t: Task) => boolean][] = [
      ['n=eq.3', (t) => t.n === 3],
      ['n=neq.3', (t) => t.n !== 3],
      ['n=gt.9', (t) => t.n > 9],
      ['n=gte.9', (t) => t.n >= 9],
      ['n=lt.2', (t) => t.n < 2],
      ['n=lte.2', (t) => t.n <= 2],
      ['score=gt.4.5', (t) => t.score !== null && t.score > 4.5],
      ['title=like.task*', (t) => t.title.startsWith('task')],
      ['title=like.*TASK*', () => false],
      ['title=ilike.*TASK 1*', (t) => /task 1/i.test(t.title)],
      ['title=eq.task 5', (t) => t.title === 'task 5'],
      ['n=in.(1,2,3)', (t) => [1, 2, 3].includes(t.n)],
      ['title=in.("task 1","task 2",nothing)', (t) => ['task 1', 'task 2'].includes(t.title)],
      ['score=is.null', (t) => t.score === null],
      ['done=is.true', (t) => t.done],
      ['done=is.false', (t) => !t.done],
      ['done=eq.false&n=lt.5', (t) => !t.done && t.n < 5],
      ['due=lt.2026-01-03T00:00:00Z', (t) => t.due !== null && t.due < '2026-01-03'],
    ];
    for (const [query, predicate] of cases) {
      it(`?${query}`, async () => {
        const encoded = query
          .split('&')
          .map((pair) => {
            const [k, ...v] = pair.split('=');
            return `${k}=${q(v.join('='))}`;
          })
          .join('&');
        const response = await list(`?limit=100&${encoded}`);
        assert.equal(response.status, 200, response.text);
        const expected = pick(predicate);
        assert.deepEqual(ids(response.body), expected);
        assert.equal(response.body.meta.total, expected.length);
      });
    }
    it('shorthand filters are ANDed with filter=', async () => {
      const response = await list(`?done=is.false&filter=${q('title ~ "urgent"')}`);
      assert.deepEqual(
        ids(response.body),
        pick((t) => !t.done && /urgent/i.test(t.title)),
      );
    });

    const refused: [string, string][] = [
      ['unknown column', 'nope=eq.1'],
      ['unknown operator', 'n=between.1'],
      ['no operator', 'n=3'],
      ['a value of the wrong type', 'n=eq.three'],
      ['like on an integer', 'n=like.1*'],
      ['is with a bad value', 'done=is.maybe'],
      ['an unterminated in list', 'n=in.(1,2'],
      ['password', 'password=eq.x'],
    ];
    for (const [label, query] of refused) {
      it(`${label} (?${query}) → 400 VALIDATION_FILTER`, async () => {
        const response = await list(`?${query}`);
        assertError(response, 400, 'VALIDATION_FILTER');
      });
    }
    it('an unknown shorthand column: suggestion lists the columns', async () => {
      const response = await list('?nope=eq.1');
      for (const column of ['title', 'n', 'done'])
        assert.ok(response.body.error.suggestion.includes(column), response.body.error.suggestion);
    });
  });

  describe('order ties on created_at', () => {
    it("rows of one bulk request (same created_at) come in id order, in the last sort key's direction", async () => {
      await putTable(server, project, 'ties', { columns: [{ name: 'label', type: 'text' }], rules: { list: '' } });
      const given = ['zeta', 'alpha', 'mike', 'bravo'];
      const created = await server.request('POST', `/p/${project.id}/api/ties/bulk`, {
        headers: project.admin,
        body: given.map((id) => ({ id, label: id })),
      });
      assert.equal(created.status, 201, created.text);
      const response = await server.request('GET', `/p/${project.id}/api/ties`, { headers: project.anon });
      assert.deepEqual(
        response.body.data.map((r: { id: string }) => r.id),
        [...given].sort(),
      );
      const reversed = await server.request('GET', `/p/${project.id}/api/ties?sort=-created_at`, {
        headers: project.anon,
      });
      assert.deepEqual(
        reversed.body.data.map((r: { id: string }) => r.id),
        [...given].sort().reverse(),
        'the id tie-breaker follows the last key: descending',
      );
    });
  });
});
