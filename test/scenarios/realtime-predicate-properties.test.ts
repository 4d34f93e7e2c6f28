/**
 * The in-memory predicates of realtime (src/realtime/row-predicate.ts) agree with the SQL
 * the engine runs for the same compiled condition (fast-check, bounded runs): for random
 * filters over every column type, the rows the server's list returns are exactly the rows
 * the predicate accepts. Runs on both engines, so each dialect is checked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { isoNow } from '../../src/lib/clock.js';
import { parseListParams } from '../../src/query/list-params.js';
import { compileFilter } from '../../src/query/filter-compiler.js';
import { parseFilter } from '../../src/query/filter-parser.js';
import { compareCodePoints, compilePredicate } from '../../src/realtime/row-predicate.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const RUNS = 150;

describe('realtime predicates match the SQL of both engines', () => {
  let server: TestServer;
  let project: TestProject;
  let rows: Record<string, unknown>[];
  let columns: ReadonlyMap<string, import('../../src/query/sql-tree.js').ValueType>;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await putTable(server, project, 'things', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'other', type: 'text' },
        { name: 'n', type: 'integer' },
        { name: 'price', type: 'number' },
        { name: 'done', type: 'boolean' },
        { name: 'due', type: 'timestamp' },
        { name: 'meta', type: 'json' },
      ],
    });
    const seed = [
      { title: 'alpha', other: 'Alpha', n: 1, price: 1.5, done: false, due: '2026-01-01T00:00:00Z', meta: { a: 1 } },
      { title: 'ALPHA beta', other: 'b', n: -5, price: null, done: true, due: null, meta: [1, 2] },
      { title: 'é', other: 'É', n: 0, price: 0, done: null, due: '2030-01-01T00:00:00.123Z', meta: null },
      { title: '😀 emoji', other: '\uFFFD', n: 10, price: -2.25, done: false, due: '2020-06-01T12:00:00Z', meta: 'x' },
      { title: '%_\\ wild', other: '%', n: null, price: 1e10, done: true, due: '1999-12-31T23:59:59Z', meta: true },
      { title: '', other: null, n: 2, price: 2, done: false, due: '2026-01-01T00:00:00.001Z', meta: 0 },
      { title: null, other: 'x_y', n: 3, price: 3.5, done: null, due: '2026-06-15T08:30:00Z', meta: null },
      { title: 'Zebra', other: 'zebra', n: 1, price: 1, done: true, due: '2026-01-01T00:00:00Z', meta: {} },
      { title: 'ß straße', other: 'SS', n: -1, price: -0.5, done: false, due: '2000-02-29T00:00:00Z', meta: [] },
      {
        title: '\u{10000} high',
        other: '\uE000 low',
        n: 7,
        price: 7,
        done: true,
        due: '2026-01-02T00:00:00Z',
        meta: 'y',
      },
    ];
    const response = await server.request('POST', `/p/${project.id}/api/things/bulk`, {
      headers: project.admin,
      body: seed,
    });
    assert.equal(response.status, 201, response.text);
    rows = (await server.request('GET', `/p/${project.id}/api/things?limit=1000`, { headers: project.admin })).body
      .data;
    columns = (await server.built.services.schemas.schema(project.id)).tables.get('things')!.filterable;
  });
  after(() => server.close());

  const text = fc.constantFrom(
    '"alpha"',
    '"Alpha"',
    '"ALPHA"',
    '"a"',
    '""',
    '"é"',
    '"É"',
    '"😀"',
    '"\uFFFD"',
    '"\uE000"',
    '"%"',
    '"_"',
    '"\\\\"',
    '"x_y"',
    '"ß"',
    '"ss"',
    '"zebra"',
    '"beta"',
    '"\u{10000}"',
  );
  const comparison = fc
    .oneof(
      fc.tuple(
        fc.constantFrom('title', 'other'),
        fc.constantFrom('=', '!=', '<', '<=', '>', '>=', '~', '!~'),
        fc.oneof(text, fc.constant('null')),
      ),
      fc.tuple(
        fc.constantFrom('n', 'price'),
        fc.constantFrom('=', '!=', '<', '<=', '>', '>='),
        fc.oneof(fc.integer({ min: -6, max: 11 }).map(String), fc.constantFrom('1.5', '-0.5', '1e10', '2.0', 'null')),
      ),
      fc.tuple(fc.constant('done'), fc.constantFrom('=', '!='), fc.constantFrom('true', 'false', 'null')),
      fc.tuple(
        fc.constant('due'),
        fc.constantFrom('=', '!=', '<', '<=', '>', '>='),
        fc.constantFrom(
          '"2026-01-01"',
          '"2026-01-01T00:00:00Z"',
          '"2026-01-01T00:00:00.001Z"',
          '"2000-01-01"',
          '@now',
          'null',
        ),
      ),
      fc.tuple(fc.constant('meta'), fc.constantFrom('=', '!='), fc.constant('null')),
      fc
        .tuple(fc.constantFrom('title', 'n'), fc.constantFrom('=', '!=', '<', '>='), fc.constantFrom('other', 'price'))
        .filter(([l, , r]) => (l === 'title') === (r === 'other')),
    )
    .map(([left, op, right]) => `${left} ${op} ${right}`);
  const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      comparison,
      fc.tuple(tie('expr'), fc.constantFrom('&&', '||'), tie('expr')).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie('expr').map((e) => `!(${e})`),
    ),
  })).expr;

  /** Asserts that the server's list and the in-memory predicate pick the same rows for `filter`. */
  const agree = async (filter: string): Promise<void> => {
    const response = await server.request(
      'GET',
      `/p/${project.id}/api/things?limit=1000&filter=${encodeURIComponent(filter)}`,
      { headers: project.admin },
    );
    const now = isoNow(server.built.services.clock);
    let where: ReturnType<typeof parseListParams>['where'];
    try {
      where = parseListParams({ filter }, columns, now).where;
    } catch {
      assert.equal(response.status, 400, `${filter}: refused in memory, ${response.status} from the server`);
      return;
    }
    assert.equal(response.status, 200, `${filter} → ${response.text}`);
    const fromSql = response.body.data.map((row: { id: string }) => row.id).sort();
    const test = compilePredicate(where);
    const inMemory = rows
      .filter((row) => test(row))
      .map((row) => row.id as string)
      .sort();
    assert.deepEqual(inMemory, fromSql, `filter: ${filter}`);
  };

  // Named edges first: each differs between a naive JavaScript evaluation and SQL.
  const edges = [
    'title ~ "É"',
    'other ~ "é"',
    'title ~ "alpha"',
    'title ~ "%"',
    'title ~ "_"',
    'other ~ "x_y"',
    'title ~ "ss"',
    'title ~ "\\\\"',
    'title !~ "a"',
    'title < "\uE000"',
    'title > "\u{10000}"',
    'other >= "\uFFFD"',
    'title < other',
    'n < price',
    'n != null',
    'price = null',
    'done != true',
    '!(done = true)',
    'done = false || done = null',
    'meta = null',
    'meta != null',
    'due > "2026-01-01"',
    'due = "2026-01-01T00:00:00Z"',
    'due < @now',
    'n = 1.5',
    'price = 2',
    'title = ""',
    'title != ""',
    '!(title = "alpha")',
  ];
  for (const filter of edges) it(`edge: ${filter}`, () => agree(filter));

  it('for random filters, the list answer and the predicate pick the same rows', async () => {
    await fc.assert(fc.asyncProperty(expression, agree), { numRuns: RUNS });
  });

  it('rules with @request.auth values compile to the same predicate semantics', () => {
    // Value-against-value comparisons (auth field vs literal) fold to constants or compare in memory.
    const ast = parseFilter('@request.auth.id = "u1" && title != null', 'rules.list');
    const scope = {
      parameter: 'rules.list',
      columns,
      now: isoNow(server.built.services.clock),
      authColumns: new Map([['id', 'text' as const]]),
    };
    const asUser = compilePredicate(compileFilter(ast, { ...scope, auth: { id: 'u1' } }));
    const asOther = compilePredicate(compileFilter(ast, { ...scope, auth: { id: 'u2' } }));
    assert.equal(rows.filter((row) => asUser(row)).length, rows.filter((row) => row.title !== null).length);
    assert.equal(rows.filter((row) => asOther(row)).length, 0);
    // Code-point order, not UTF-16 order: U+10000 sorts after U+E000 (SQLite BINARY, PostgreSQL "C").
    assert.ok(compareCodePoints('\u{10000}', '\uE000') > 0);
    assert.ok('\u{10000}' < '\uE000', 'JavaScript alone would get it wrong');
  });
});
