/**
 * Aggregates in `select` (contract §13): count/sum/avg/min/max, aliases, grouping by plain
 * columns, under the caller's list rule and filter; meta.total is the number of groups;
 * sort by groups and output keys; cursors over groups; refused selects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, signUp } from '../helpers/auth-fixtures.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('aggregates: GET /p/{id}/api/{table}?select=...,count()', () => {
  let server: TestServer;
  let project: TestProject;
  let ada: { token: string; user: { id: string } };
  const q = (text: string) => encodeURIComponent(text);
  const list = (query: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/orders?${query}`, { headers: headers ?? project.admin });

  // status, amount, qty, due, owner (ada or bob): the expected groups are computed from this table.
  const rows = [
    ['open', 10.5, 1, '2026-01-03T00:00:00.000Z', 'ada'],
    ['open', 4.5, 2, '2026-01-01T00:00:00.000Z', 'bob'],
    ['paid', 20, 3, '2026-02-01T00:00:00.000Z', 'ada'],
    ['paid', 1, 4, null, 'ada'],
    ['paid', null, 5, '2026-03-01T00:00:00.000Z', 'bob'],
    ['void', 7, 6, '2026-01-15T00:00:00.000Z', 'ada'],
    [null, 2, 7, null, 'bob'],
  ] as const;

  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, { columns: [{ name: 'name', type: 'text' }] });
    ada = await signUp(server, project, 'ada@example.com');
    const bob = await signUp(server, project, 'bob@example.com');
    await putTable(server, project, 'orders', {
      columns: [
        { name: 'status', type: 'text' },
        { name: 'amount', type: 'number' },
        { name: 'qty', type: 'integer' },
        { name: 'due', type: 'timestamp' },
        { name: 'paid', type: 'boolean' },
        { name: 'meta', type: 'json' },
        { name: 'owner', type: 'text' },
      ],
      rules: { list: 'owner = @request.auth.id' },
    });
    const owners = { ada: ada.user.id, bob: bob.user.id };
    const body = rows.map(([status, amount, qty, due, owner]) => ({
      status,
      amount,
      qty,
      due,
      owner: owners[owner],
      paid: status === 'paid',
      meta: { qty },
    }));
    const created = await server.request('POST', `/p/${project.id}/api/orders/bulk`, { headers: project.admin, body });
    assert.equal(created.status, 201, created.text);
  });
  after(() => server.close());

  it('select=status,count(): one row per group (no id), in order (null first), total = number of groups', async () => {
    const response = await list('select=status,count()');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, [
      { status: null, count: 1 },
      { status: 'open', count: 2 },
      { status: 'paid', count: 3 },
      { status: 'void', count: 1 },
    ]);
    assert.equal(response.body.meta.total, 4);
    assert.equal(response.body.meta.next_cursor, null);
  });

  it('every function with default keys and an alias; sum/avg skip nulls; min/max of timestamps and text', async () => {
    const response = await list(
      'select=status,total:sum(amount),avg(amount),min(due),max(due),sum(qty),min(status)' +
        `&filter=${q('status = "paid"')}`,
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, [
      {
        status: 'paid',
        total: 21,
        avg_amount: 10.5,
        min_due: '2026-02-01T00:00:00.000Z',
        max_due: '2026-03-01T00:00:00.000Z',
        sum_qty: 12,
        min_status: 'paid',
      },
    ]);
  });

  it('no plain column: one row for the whole filtered table (total 1)', async () => {
    const response = await list(`select=count(),max(qty)&filter=${q('qty > 2')}`);
    assert.deepEqual(response.body.data, [{ count: 5, max_qty: 7 }]);
    assert.equal(response.body.meta.total, 1);
    const empty = await list(`select=count(),sum(amount)&filter=${q('qty > 100')}`);
    assert.deepEqual(empty.body.data, [{ count: 0, sum_amount: null }]);
  });

  it('shorthand filters apply before grouping', async () => {
    const response = await list('select=status,count()&status=in.(open,void)');
    assert.deepEqual(response.body.data, [
      { status: 'open', count: 2 },
      { status: 'void', count: 1 },
    ]);
  });

  it("the caller's list rule applies before grouping: a user counts only their rows", async () => {
    const response = await list('select=status,count()', bearer(ada.token));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, [
      { status: 'open', count: 1 },
      { status: 'paid', count: 2 },
      { status: 'void', count: 1 },
    ]);
    assert.equal(response.body.meta.total, 3);
  });

  it('sort by an output key (descending) then group; two grouping columns', async () => {
    const response = await list('select=status,count()&sort=-count,status');
    assert.deepEqual(
      response.body.data.map((g: { status: string | null }) => g.status),
      ['paid', 'open', null, 'void'],
    );
    const two = await list('select=status,paid,n:count()&sort=-n&limit=2');
    assert.deepEqual(two.body.data, [
      { status: 'paid', paid: true, n: 3 },
      { status: 'open', paid: false, n: 2 },
    ]);
    assert.equal(two.body.meta.total, 4);
  });

  it('meta.total stays the number of groups on a partial page and past the end', async () => {
    const partial = await list('select=status,count()&limit=3&offset=2');
    assert.deepEqual([partial.body.data.length, partial.body.meta.total], [2, 4]);
    const past = await list('select=status,count()&offset=10');
    assert.deepEqual([past.body.data.length, past.body.meta.total], [0, 4]);
    assert.equal((await list('select=status,count()&limit=0')).body.meta.total, 4);
  });

  it('groups page with limit and with cursors (next_cursor, after) to the same sequence', async () => {
    const whole = (await list('select=status,count()')).body.data;
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`select=status,count()&limit=1${cursor ? `&after=${q(cursor)}` : ''}`);
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.data);
      cursor = page.body.meta.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(seen, whole);
    const first = await list('select=status,count()&limit=1');
    assertError(
      await list(`select=status,sum(qty)&limit=1&after=${q(first.body.meta.next_cursor)}`),
      400,
      'VALIDATION_FILTER',
    );
  });

  const refused: [string, string, RegExp][] = [
    ['sum of a text column', 'select=status,sum(status)', /amount, qty/],
    ['avg of a timestamp', 'select=avg(due)', /amount, qty/],
    ['min of a boolean', 'select=min(paid)', /count\(\)/],
    ['max of a json column', 'select=max(meta)', /min and max work on/],
    ['an unknown function', 'select=status,median(amount)', /count\(\), sum\(column\)/],
    ['an unknown column in a function', 'select=sum(amout)', /amount/],
    ['an unknown grouping column', 'select=stat,count()', /status/],
    ['grouping by a json column', 'select=meta,count()', /status/],
    ['count with a column', 'select=count(amount)', /count\(\)/],
    ['two outputs with one key', 'select=sum(qty),sum(qty)', /alias/],
    ['an alias colliding with a grouping column', 'select=status,status:count()', /alias/],
    ['an alias colliding with a default key', 'select=count(),count:sum(qty)', /alias/],
    ['sort by a column that is not a group or key', 'select=status,count()&sort=amount', /status, count/],
    ['a malformed item', 'select=status,sum(amount', /function\(column\)/],
  ];
  for (const [name, query, suggestion] of refused) {
    it(`${name} → 400 VALIDATION_FILTER with a suggestion naming what is valid`, async () => {
      const response = await list(query);
      assertError(response, 400, 'VALIDATION_FILTER');
      assert.match(response.body.error.suggestion, suggestion);
    });
  }
});
