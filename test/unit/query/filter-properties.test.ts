import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { isAppError } from '../../../src/errors/app-error.js';
import { compileFilter, type FilterScope } from '../../../src/query/filter-compiler.js';
import { parseFilter } from '../../../src/query/filter-parser.js';
import { parseListParams } from '../../../src/query/list-params.js';
import { parseShorthand } from '../../../src/query/shorthand.js';
import type { ColumnRef, Expr, ValueType } from '../../../src/query/sql-tree.js';
import { compileStatement } from '../../../src/store/sqlite/sqlite-compiler.js';

const NOW = '2024-05-01T10:00:00.000Z';

const columnList: readonly ColumnRef[] = [
  { name: 'id', type: 'text' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'title', type: 'text' },
  { name: 'owner', type: 'text' },
  { name: 'done', type: 'boolean' },
  { name: 'n', type: 'integer' },
  { name: 'price', type: 'number' },
  { name: 'due', type: 'timestamp' },
  { name: 'meta', type: 'json' },
];
const columns = new Map(columnList.map((c) => [c.name, c.type] as const));
const authColumns = new Map<string, ValueType>([
  ['role', 'text'],
  ['level', 'integer'],
  ['joined', 'timestamp'],
]);

const filterScope: FilterScope = { parameter: 'filter', columns, now: NOW };
const ruleScope: FilterScope = {
  parameter: 'rules.update',
  columns,
  now: NOW,
  authColumns,
  auth: { id: 'u1', role: 'admin', level: 3, joined: '2024-01-01T00:00:00Z' },
  body: { title: 'x', n: 2, due: '2024-02-01', meta: { a: 1 }, constructor: 'c' },
};

/** An in-memory SQLite table `t` with the columns above and a few rows, so that queries really run. */
const db = new Database(':memory:');
db.exec(
  'CREATE TABLE t (id TEXT PRIMARY KEY, created_at TEXT, title TEXT, owner ' +
    'TEXT, done INTEGER, n INTEGER, price REAL, due TEXT, meta TEXT)',
);
const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
insert.run('a', '2024-01-01T00:00:00.000Z', 'Urgent 50%', 'u1', 1, 3, 1.5, '2024-06-01T00:00:00.000Z', '{"a":1}');
insert.run('b', '2024-01-02T00:00:00.000Z', 'calm_day', null, 0, -7, null, null, null);
insert.run('c', '2024-01-03T00:00:00.000Z', null, 'u2', null, null, 2.25, '2023-12-31T23:59:59.000Z', '[1,2]');
after(() => db.close());

/** Runs `where` as a SELECT on SQLite: compiling and executing it must not throw. */
function runOnSqlite(where: Expr): unknown[] {
  const { sql, params } = compileStatement({ kind: 'select', table: 't', columns: columnList, where });
  return db.prepare(sql).all(...params);
}

/** parse + compile: either an Expr or a VALIDATION_FILTER AppError, never anything else. */
function compileOrReject(source: string, scope: FilterScope): Expr | undefined {
  try {
    return compileFilter(parseFilter(source, scope.parameter), scope);
  } catch (error) {
    assert.ok(isAppError(error), `not an AppError for ${JSON.stringify(source)}: ${String(error)}`);
    assert.equal(error.code, 'VALIDATION_FILTER', `wrong code for ${JSON.stringify(source)}`);
    assert.match(error.message, /^(filter|rules\.update): .+ at character \d+$/);
    return undefined;
  }
}

describe('the SQLite fixture', () => {
  const ids = (source: string): unknown[] =>
    runOnSqlite(compileFilter(parseFilter(source), filterScope)).map((row) => (row as { id: string }).id);
  it('answers compiled filters as expected', () => {
    assert.deepEqual(ids('title ~ "urgent 50%"'), ['a']);
    assert.deepEqual(ids('title ~ "_"'), ['b']);
    assert.deepEqual(ids('owner != "u1"'), ['b', 'c']);
    assert.deepEqual(ids('done = true || n < 0'), ['a', 'b']);
    assert.deepEqual(ids('due < @now && meta != null'), ['c']);
  });
});

// --- arbitrary (mostly invalid) text -------------------------------------------------------

const tokens = [
  '(',
  ')',
  '!',
  '&&',
  '||',
  '&',
  '|',
  '=',
  '==',
  '!=',
  '~',
  '!~',
  '<',
  '<=',
  '>',
  '>=',
  'title',
  'n',
  'done',
  'meta',
  'due',
  'price',
  'ownr',
  'Title',
  '_x',
  '"x"',
  "'y'",
  '"',
  "'",
  '\\',
  '"a\\"b"',
  '"2024-01-31"',
  '"yesterday"',
  '1',
  '-2.5e3',
  '1.5',
  '1e999',
  '9007199254740993',
  '-',
  '.',
  'true',
  'false',
  'null',
  '@now',
  '@request.auth.id',
  '@request.auth.role',
  '@request.auth.nope',
  '@request.body.title',
  '@request.body.meta',
  '@',
  '@request',
  'é',
  '😀',
  '\u0000',
  '\ud800',
  ' ',
  '\t',
  '\n',
];
const tokenSoup = fc
  .array(fc.constantFrom(...tokens), { maxLength: 40 })
  .chain((parts) => fc.constantFrom(' ', '').map((glue) => parts.join(glue)));
const deepNesting = fc
  .record({
    depth: fc.nat({ max: 400 }),
    opener: fc.constantFrom('(', '!', '!(', '(!'),
    tail: fc.constantFrom('', 'n = 1', 'n = 1)', ')'),
  })
  .map(({ depth, opener, tail }) => opener.repeat(depth) + tail + ')'.repeat(depth));
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 120 }),
  tokenSoup,
  deepNesting,
  fc.string({ unit: 'grapheme-ascii', minLength: 4090, maxLength: 4200 }),
);

describe('property: any text → an Expr or VALIDATION_FILTER, nothing else', () => {
  it('parse + compile as a filter and as a rule', () => {
    fc.assert(
      fc.property(anyText, (source) => {
        for (const scope of [filterScope, ruleScope]) {
          const expr = compileOrReject(source, scope);
          if (expr !== undefined) runOnSqlite(expr);
        }
      }),
      { numRuns: 700 },
    );
  });

  it('shorthand filters with any column and value', () => {
    const key = fc.oneof(fc.constantFrom(...columns.keys(), 'nope'), fc.string({ maxLength: 10 }));
    const raw = fc.oneof(
      fc
        .tuple(
          fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'in', 'is', 'x', ''),
          fc.oneof(fc.string({ maxLength: 30 }), tokenSoup),
        )
        .map(([op, value]) => `${op}.${value}`),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(key, raw, (column, text) => {
        try {
          runOnSqlite(parseShorthand(column, text, columns, NOW));
        } catch (error) {
          assert.ok(isAppError(error) && error.code === 'VALIDATION_FILTER', `${column}=${text}: ${String(error)}`);
        }
      }),
      { numRuns: 700 },
    );
  });

  it('list parameters with any values', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      fc.constant(undefined),
    );
    const query = fc.dictionary(
      fc.constantFrom('limit', 'offset', 'count', 'sort', 'select', 'filter', 'title', 'n', 'nope'),
      value,
    );
    fc.assert(
      fc.property(query, (q) => {
        try {
          const params = parseListParams(q, columns, NOW);
          assert.ok(params.limit >= 0 && params.limit <= 1000 && params.offset >= 0);
          assert.equal(params.orderBy.filter((term) => term.column === 'id').length, 1);
        } catch (error) {
          assert.ok(isAppError(error) && error.code === 'VALIDATION_FILTER', String(error));
        }
      }),
      { numRuns: 500 },
    );
  });
});

// --- generated valid expressions ----------------------------------------------------------

/** A string literal as source text, in either quote, with the needed escapes. */
const stringLiteral = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('"', "'"))
  .map(([text, quote]) => `${quote}${text.replace(/\\/g, '\\\\').replaceAll(quote, `\\${quote}`)}${quote}`);
const finiteNumber = fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
const safeInteger = fc.maxSafeInteger().map(String);
const isoDate = fc
  .date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((date) => fc.constantFrom(`"${date.toISOString()}"`, `'${date.toISOString().slice(0, 10)}'`, '@now'));

const equality = fc.constantFrom('=', '!=');
const ordering = fc.constantFrom('<', '<=', '>', '>=');
const anyCompare = fc.constantFrom('=', '!=', '<', '<=', '>', '>=');

/** `column op value`, sometimes written `value op column`. */
const swap = (column: string, op: string, value: string): fc.Arbitrary<string> =>
  fc.boolean().map((flip) => (flip ? `${value} ${op} ${column}` : `${column} ${op} ${value}`));

const comparison: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('title', 'owner', 'id'), anyCompare, stringLiteral).chain(([c, op, v]) => swap(c, op, v)),
  fc
    .tuple(fc.constantFrom('title', 'owner'), fc.constantFrom('~', '!~'), stringLiteral)
    .map(([c, op, v]) => `${c} ${op} ${v}`),
  fc.tuple(anyCompare, safeInteger).chain(([op, v]) => swap('n', op, v)),
  fc.tuple(ordering, finiteNumber).chain(([op, v]) => swap('n', op, v)),
  fc.tuple(anyCompare, finiteNumber).chain(([op, v]) => swap('price', op, v)),
  fc.tuple(anyCompare, fc.constantFrom('true', 'false')).chain(([op, v]) => swap('done', op, v)),
  fc.tuple(fc.constantFrom('due', 'created_at'), anyCompare, isoDate).chain(([c, op, v]) => swap(c, op, v)),
  fc.tuple(fc.constantFrom(...columns.keys()), equality).chain(([c, op]) => swap(c, op, 'null')),
  fc
    .tuple(anyCompare, fc.constantFrom(['n', 'price'], ['due', 'created_at'], ['title', 'owner'], ['done', 'done']))
    .map(([op, [a, b]]) => `${a} ${op} ${b}`),
  fc.tuple(anyCompare, stringLiteral, stringLiteral).map(([op, a, b]) => `${a} ${op} ${b}`),
  fc.tuple(anyCompare, finiteNumber, finiteNumber).map(([op, a, b]) => `${a} ${op} ${b}`),
  fc.constantFrom(
    'owner = @request.auth.id',
    '@request.auth.id != ""',
    '@request.auth.role = "admin"',
    'n <= @request.auth.level',
    'due > @request.auth.joined',
    'title = @request.body.title',
    'title ~ @request.body.title',
    'n != @request.body.n',
    'due < @request.body.due',
    '@request.body.title != null',
    'title = @request.body.missing',
    '@request.body.constructor = "c"',
  ),
);

const expression = fc
  .letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 4, depthIdentifier: 'filter' },
      comparison,
      fc
        .array(tie('node'), { minLength: 2, maxLength: 3 })
        .map((items) => items.map((item) => `(${item})`).join(' && ')),
      fc
        .array(tie('node'), { minLength: 2, maxLength: 3 })
        .map((items) => items.map((item) => `(${item})`).join(' || ')),
      tie('node').map((item) => `!(${item})`),
      tie('node').map((item) => ` ( ${item} ) `),
    ),
  }))
  .node.filter((source) => source.length <= 4096);

describe('property: generated valid expressions always compile', () => {
  it('to an Expr that SQLite accepts', () => {
    fc.assert(
      fc.property(expression, (source) => {
        const usesRequest = source.includes('@request');
        const expr = compileFilter(parseFilter(source), usesRequest ? ruleScope : filterScope);
        assert.equal(typeof expr.kind, 'string');
        runOnSqlite(expr);
      }),
      { numRuns: 600 },
    );
  });
});
