/**
 * Property tests over real HTTP (fast-check, bounded runs): whatever a client puts into
 * `filter`, a shorthand filter, `sort` or `select`, the server answers 200 or
 * 400 VALIDATION_FILTER with the envelope, never a 500; and a 200 never shows a row that the
 * list rule hides.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertEnvelope } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const RUNS = 100;
const COLUMN_NAMES = ['title', 'n', 'price', 'done', 'due', 'meta', 'id', 'created_at'];

describe('list parameters never crash the server', () => {
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'filter-props');
    await putTable(server, project, 'things', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'integer' },
        { name: 'price', type: 'number' },
        { name: 'done', type: 'boolean' },
        { name: 'due', type: 'timestamp' },
        { name: 'meta', type: 'json' },
      ],
      rules: { list: 'done = false' },
    });
    const rows = [
      { title: 'alpha', n: 1, price: 1.5, done: false, due: '2026-01-01T00:00:00Z', meta: { a: 1 } },
      { title: 'it\'s "quoted"', n: -5, price: null, done: false, due: null, meta: [1, 2] },
      { title: 'secret', n: 99, price: 0, done: true, due: '2030-01-01T00:00:00Z', meta: null },
      { title: '日本 %_\\', n: 0, price: -2, done: false, due: '2020-06-01T12:00:00Z', meta: 'x' },
    ];
    const response = await server.request('POST', `/p/${project.id}/api/things/bulk`, {
      headers: project.admin,
      body: rows,
    });
    assert.equal(response.status, 201, response.text);
  });
  after(() => server.close());

  /** Lists with the pk_ key; asserts 200 (no hidden row) or 400 VALIDATION_FILTER with the envelope. */
  const check = async (query: string): Promise<void> => {
    const response = await server.request('GET', `/p/${project.id}/api/things?${query}`, { headers: project.anon });
    if (response.status === 200) {
      assert.ok(Array.isArray(response.body.data), `200 without data for ?${query}`);
      for (const row of response.body.data)
        assert.notEqual(row.done, true, `a row hidden by the list rule leaked for ?${query}`);
      return;
    }
    assert.equal(response.status, 400, `?${query} → ${response.status} ${response.text}`);
    assert.equal(response.body?.error?.code, 'VALIDATION_FILTER', `?${query} → ${response.text}`);
    assertEnvelope(response);
  };

  // Control characters, ASCII and any Unicode grapheme (fast-check's 'binary' unit is slow to generate).
  const anyChar = fc.oneof(
    fc.string({ minLength: 1, maxLength: 1, unit: 'binary-ascii' }),
    fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
  );
  const anyString = (maxLength: number) => fc.string({ maxLength, unit: anyChar });

  // Fragments of the filter language, so that random text often parses far before failing.
  const token = fc.oneof(
    fc.constantFrom(
      ...COLUMN_NAMES,
      'password',
      '@now',
      '@request.auth.id',
      '@request.body.x',
      '@',
      'true',
      'false',
      'null',
    ),
    fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~', '!~', '&&', '||', '!', '(', ')', '"', "'", '\\', ',', ' '),
    fc.integer().map(String),
    fc.double({ noNaN: false }).map(String),
    fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.string({ maxLength: 8 }).map((s) => `'${s}'`),
    anyString(6),
  );
  const tokenSoup = fc.array(token, { maxLength: 12 }).map((parts) => parts.join(' '));
  const comparison = fc
    .tuple(fc.constantFrom(...COLUMN_NAMES), fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '~', '!~'), token)
    .map(([column, op, value]) => `${column} ${op} ${value}`);
  const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      comparison,
      fc.tuple(tie('expr'), fc.constantFrom('&&', '||'), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
      tie('expr').map((e) => `!(${e})`),
      tie('expr').map((e) => `(${e})`),
    ),
  })).expr;

  it(`random strings as filter (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(anyString(60), async (text) => check(`filter=${encodeURIComponent(text)}`)),
      { numRuns: RUNS },
    );
  });

  it(`token soup as filter (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(tokenSoup, async (text) => check(`filter=${encodeURIComponent(text)}`)),
      { numRuns: RUNS },
    );
  });

  it(`random well-formed expressions as filter (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(expression, async (text) => check(`filter=${encodeURIComponent(text)}`)),
      { numRuns: RUNS },
    );
  });

  it(`random shorthand values on every column (${RUNS} runs)`, async () => {
    const op = fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'in', 'is', 'nope', '');
    const value = fc.oneof(
      anyString(20),
      token,
      fc.array(token, { maxLength: 4 }).map((items) => `(${items.join(',')})`),
    );
    const shorthand = fc
      .tuple(fc.constantFrom(...COLUMN_NAMES, 'password', 'unknown'), op, value)
      .map(([column, o, v]) => `${column}=${encodeURIComponent(o === '' ? v : `${o}.${v}`)}`);
    await fc.assert(
      fc.asyncProperty(fc.array(shorthand, { minLength: 1, maxLength: 3 }), async (pairs) => check(pairs.join('&'))),
      { numRuns: RUNS },
    );
  });

  it(`random sort, select, limit and offset (${RUNS} runs)`, async () => {
    const names = fc
      .array(fc.oneof(fc.constantFrom(...COLUMN_NAMES, 'password', '-n', '-title', ''), fc.string({ maxLength: 6 })), {
        maxLength: 4,
      })
      .map((items) => items.join(','));
    const number = fc.oneof(fc.nat().map(String), fc.integer().map(String), fc.string({ maxLength: 5 }));
    const query = fc.record(
      { sort: names, select: names, limit: number, offset: number, count: fc.constantFrom('exact', 'none', 'maybe') },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(query, async (params) =>
        check(
          Object.entries(params)
            .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
            .join('&'),
        ),
      ),
      { numRuns: RUNS },
    );
  });
});
