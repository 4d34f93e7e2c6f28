import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/errors/app-error.js';
import { parseListParams, type ListParams } from '../../../src/query/list-params.js';
import type { Expr, ValueType } from '../../../src/query/sql-tree.js';

const NOW = '2024-05-01T10:00:00.000Z';

const columns = new Map<string, ValueType>([
  ['id', 'text'],
  ['created_at', 'timestamp'],
  ['updated_at', 'timestamp'],
  ['title', 'text'],
  ['done', 'boolean'],
  ['n', 'integer'],
  ['meta', 'json'],
]);

type Query = Record<string, string | string[] | undefined>;
const parse = (query: Query): ListParams => parseListParams(query, columns, NOW);

const defaultOrder = [
  { column: 'created_at', descending: false },
  { column: 'id', descending: false },
];

describe('parseListParams: paging, count, sort and select', () => {
  it('defaults: 50 from 0, exact count, creation order, every column, no filter', () => {
    assert.deepEqual(parse({}), {
      limit: 50,
      offset: 0,
      countTotal: true,
      orderBy: defaultOrder,
      select: null,
      where: undefined,
      after: undefined,
      filterSources: [],
      aggregate: undefined,
      expand: undefined,
    });
  });

  const scenarios: [name: string, query: Query, expected: Partial<ListParams>][] = [
    ['limit', { limit: '10' }, { limit: 10 }],
    ['limit 0', { limit: '0' }, { limit: 0 }],
    ['limit 1000', { limit: '1000' }, { limit: 1000 }],
    ['limit above 1000 is clamped', { limit: '1001' }, { limit: 1000 }],
    ['a huge limit is clamped', { limit: '99999999999999999999999' }, { limit: 1000 }],
    ['offset', { offset: '250' }, { offset: 250 }],
    ['offset at most 2^31', { offset: String(2 ** 31) }, { offset: 2 ** 31 }],
    ['count=exact', { count: 'exact' }, { countTotal: true }],
    ['count=none', { count: 'none' }, { countTotal: false }],
    [
      'sort ascending gets id appended',
      { sort: 'title' },
      {
        orderBy: [
          { column: 'title', descending: false },
          { column: 'id', descending: false },
        ],
      },
    ],
    [
      'sort with - for descending, several columns',
      { sort: '-created_at,title' },
      {
        orderBy: [
          { column: 'created_at', descending: true },
          { column: 'title', descending: false },
          { column: 'id', descending: false },
        ],
      },
    ],
    ['sort that names id is not extended', { sort: '-id' }, { orderBy: [{ column: 'id', descending: true }] }],
    [
      'sort with id in the middle',
      { sort: 'title,id,n' },
      {
        orderBy: [
          { column: 'title', descending: false },
          { column: 'id', descending: false },
          { column: 'n', descending: false },
        ],
      },
    ],
    [
      'sort items are trimmed',
      { sort: ' -n , title ' },
      {
        orderBy: [
          { column: 'n', descending: true },
          { column: 'title', descending: false },
          { column: 'id', descending: false },
        ],
      },
    ],
    [
      'a descending last key gets a descending id',
      { sort: 'title,-n' },
      {
        orderBy: [
          { column: 'title', descending: false },
          { column: 'n', descending: true },
          { column: 'id', descending: true },
        ],
      },
    ],
    [
      'a repeated sort column keeps its first mention',
      { sort: 'n,-n' },
      {
        orderBy: [
          { column: 'n', descending: false },
          { column: 'id', descending: false },
        ],
      },
    ],
    ['an empty sort is the default order', { sort: '' }, { orderBy: defaultOrder }],
    ['select puts id first', { select: 'title,done' }, { select: ['id', 'title', 'done'] }],
    [
      'select removes duplicates and a repeated id',
      { select: 'title,id,title, done' },
      { select: ['id', 'title', 'done'] },
    ],
    ['select of only id', { select: 'id' }, { select: ['id'] }],
    ['select may name json columns', { select: 'meta' }, { select: ['id', 'meta'] }],
    ['an empty select returns every column', { select: '' }, { select: null }],
    ['a one-element array counts as given once', { limit: ['5'] }, { limit: 5 }],
    ['undefined values are ignored', { limit: undefined, done: undefined }, { limit: 50, where: undefined }],
  ];
  for (const [name, query, expected] of scenarios) {
    it(name, () => {
      const params = parse(query);
      for (const [key, value] of Object.entries(expected))
        assert.deepEqual(params[key as keyof ListParams], value, key);
    });
  }

  it('returns frozen results', () => {
    const params = parse({ sort: 'title', select: 'title' });
    assert.ok(Object.isFrozen(params) && Object.isFrozen(params.orderBy) && Object.isFrozen(params.select));
  });
});

describe('parseListParams: filter and shorthand filters', () => {
  const doneFalse: Expr = {
    kind: 'compare',
    op: '=',
    left: { kind: 'column', name: 'done' },
    right: { kind: 'value', value: false, type: 'boolean' },
  };
  const nAbove: Expr = {
    kind: 'compare',
    op: '>',
    left: { kind: 'column', name: 'n' },
    right: { kind: 'value', value: 2, type: 'integer' },
  };
  const titleLike: Expr = {
    kind: 'like',
    expr: { kind: 'column', name: 'title' },
    pattern: 'a%',
    caseInsensitive: true,
    negated: false,
  };

  const scenarios: [name: string, query: Query, where: Expr | undefined][] = [
    ['filter alone', { filter: 'done = false' }, doneFalse],
    ['shorthand alone', { n: 'gt.2' }, nAbove],
    [
      'filter and shorthands are ANDed, filter first',
      { n: 'gt.2', filter: 'done = false', title: 'ilike.a*' },
      { kind: 'and', items: [doneFalse, nAbove, titleLike] },
    ],
    [
      'reserved names are not shorthands',
      { limit: '5', offset: '1', count: 'none', sort: 'n', select: 'n', n: 'gt.2' },
      nAbove,
    ],
    ['an empty filter is no filter', { filter: '  ' }, undefined],
    [
      '@now is the request time',
      { filter: 'created_at < @now' },
      {
        kind: 'compare',
        op: '<',
        left: { kind: 'column', name: 'created_at' },
        right: { kind: 'value', value: NOW, type: 'timestamp' },
      },
    ],
  ];
  for (const [name, query, where] of scenarios) {
    it(name, () => assert.deepEqual(parse(query).where, where));
  }
});

describe('parseListParams: errors → VALIDATION_FILTER naming the parameter', () => {
  const allColumns = 'created_at, done, id, meta, n, title, updated_at';
  const scenarios: [name: string, query: Query, message: string | RegExp, suggestion: RegExp][] = [
    ['limit not a number', { limit: 'ten' }, 'limit: expected a whole number ≥ 0, found "ten"', /limit=20/],
    ['limit negative', { limit: '-1' }, 'limit: expected a whole number ≥ 0, found "-1"', /limit=/],
    ['limit decimal', { limit: '1.5' }, 'limit: expected a whole number ≥ 0, found "1.5"', /limit=/],
    ['limit empty', { limit: '' }, 'limit: expected a whole number ≥ 0, found ""', /limit=/],
    ['limit with an exponent', { limit: '1e3' }, 'limit: expected a whole number ≥ 0, found "1e3"', /limit=/],
    [
      'offset negative',
      { offset: '-5' },
      `offset: expected a whole number from 0 to ${2 ** 31}, found "-5"`,
      /offset=40/,
    ],
    [
      'offset above 2^31',
      { offset: String(2 ** 31 + 1) },
      `offset: expected a whole number from 0 to ${2 ** 31}, found "${2 ** 31 + 1}"`,
      /offset=/,
    ],
    ['count unknown', { count: 'estimated' }, 'count: expected exact or none, found "estimated"', /count=none/],
    [
      'sort unknown column',
      { sort: 'titel' },
      'sort: unknown column "titel"',
      /^Sort by one of the columns: created_at, done, id, n, title, updated_at, with -/,
    ],
    [
      'sort json column',
      { sort: '-meta' },
      'sort: json column "meta" cannot be sorted',
      /created_at, done, id, n, title, updated_at/,
    ],
    [
      'sort empty item',
      { sort: 'title,,n' },
      'sort: expected a column name between the commas in "title,,n"',
      /sort=-created_at,title/,
    ],
    ['sort lone minus', { sort: '-' }, 'sort: expected a column name between the commas in "-"', /sort=/],
    [
      'select unknown column',
      { select: 'title,password' },
      'select: unknown column "password"',
      new RegExp(`^Select from the columns: ${allColumns},`),
    ],
    [
      'select trailing comma',
      { select: 'title,' },
      'select: expected a column name between the commas in "title,"',
      /select=title,done/,
    ],
    ['parameter given twice', { limit: ['5', '10'] }, 'limit: given 2 times', /once/],
    ['shorthand given twice', { n: ['gt.1', 'lt.5'] }, 'n: given 2 times', /filter=n > 1 && n < 5/],
    [
      'filter syntax error lists the columns too',
      { filter: 'title && done' },
      'filter: expected a comparison operator after "title" at character 7',
      new RegExp(`title ~ "x" && done = false.*Columns: ${allColumns}\\.$`),
    ],
    [
      'filter unknown column',
      { filter: 'ownr = "x"' },
      'filter: unknown column "ownr" at character 1',
      new RegExp(`^Use one of the columns: ${allColumns}\\.$`),
    ],
    [
      'filter type mismatch',
      { filter: 'done = "yes"' },
      /^filter: expected true or false \(boolean\) to compare with column "done"/,
      /done = true/,
    ],
    [
      'filter may not use @request',
      { filter: 'id = @request.auth.id' },
      'filter: @request.auth.id is not available here at character 6',
      /only in table rules/,
    ],
    [
      'filter too long',
      { filter: `title = "${'x'.repeat(5000)}"` },
      'filter: the expression is longer than 4096 characters at character 4097',
      /4096/,
    ],
    [
      'unknown query parameter is an unknown column',
      { limt: '5' },
      'limt=5: unknown column "limt"',
      new RegExp(`^Use one of the columns: ${allColumns}\\.$`),
    ],
    [
      'shorthand with a bad value',
      { done: 'eq.yes' },
      'done=eq.yes: expected true or false (boolean) for column "done", found "yes"',
      /done=is\.true/,
    ],
  ];
  for (const [name, query, message, suggestion] of scenarios) {
    it(name, () => {
      assert.throws(
        () => parse(query),
        (error: unknown) => {
          assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
          assert.equal(error.code, 'VALIDATION_FILTER');
          if (typeof message === 'string') assert.equal(error.message, message);
          else assert.match(error.message, message);
          assert.match(error.suggestion, suggestion);
          return true;
        },
      );
    });
  }
});
