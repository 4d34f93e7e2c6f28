import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/errors/app-error.js';
import { MAX_IN_VALUES, parseShorthand } from '../../../src/query/shorthand.js';
import type { CompareOp, Expr, ValueType } from '../../../src/query/sql-tree.js';

const columns = new Map<string, ValueType>([
  ['id', 'text'],
  ['title', 'text'],
  ['done', 'boolean'],
  ['n', 'integer'],
  ['price', 'number'],
  ['due', 'timestamp'],
  ['meta', 'json'],
]);

const NOW = '2026-11-24T12:00:00.000Z';
const col = (name: string): Expr => ({ kind: 'column', name });
const val = (value: unknown, type: ValueType): Expr => ({ kind: 'value', value, type });
const cmp = (op: CompareOp, name: string, value: unknown, type: ValueType): Expr => ({
  kind: 'compare',
  op,
  left: col(name),
  right: val(value, type),
});
const inList = (name: string, values: unknown[], type: ValueType): Expr => ({
  kind: 'in',
  expr: col(name),
  values: values.map((v) => val(v, type)),
});

describe('parseShorthand: column=op.value', () => {
  const scenarios: [name: string, column: string, raw: string, expected: Expr][] = [
    ['eq on text', 'title', 'eq.hello world', cmp('=', 'title', 'hello world', 'text')],
    ['eq keeps dots after the first', 'title', 'eq.a.b.c', cmp('=', 'title', 'a.b.c', 'text')],
    ['eq on text with an empty value', 'title', 'eq.', cmp('=', 'title', '', 'text')],
    ['neq on boolean', 'done', 'neq.true', cmp('!=', 'done', true, 'boolean')],
    ['gt on integer', 'n', 'gt.-3', cmp('>', 'n', -3, 'integer')],
    ['gte on number', 'price', 'gte.1.5', cmp('>=', 'price', 1.5, 'number')],
    ['lt on number with an exponent', 'price', 'lt.1e3', cmp('<', 'price', 1000, 'number')],
    [
      'lte on timestamp',
      'due',
      'lte.2024-01-31T12:00:00+01:00',
      cmp('<=', 'due', '2024-01-31T11:00:00.000Z', 'timestamp'),
    ],
    ['eq on timestamp date only', 'due', 'eq.2024-01-31', cmp('=', 'due', '2024-01-31T00:00:00.000Z', 'timestamp')],
    [
      'like: * is the wildcard, case-sensitive',
      'title',
      'like.*urgent*',
      { kind: 'like', expr: col('title'), pattern: '%urgent%', caseInsensitive: false, negated: false },
    ],
    [
      'like escapes %, _ and \\ first',
      'title',
      'like.50%_a\\b*',
      { kind: 'like', expr: col('title'), pattern: '50\\%\\_a\\\\b%', caseInsensitive: false, negated: false },
    ],
    [
      'ilike is case-insensitive',
      'title',
      'ilike.Re*',
      { kind: 'like', expr: col('title'), pattern: 'Re%', caseInsensitive: true, negated: false },
    ],
    ['in on text', 'title', 'in.(a,b,c)', inList('title', ['a', 'b', 'c'], 'text')],
    [
      'in with quoted values holding commas',
      'title',
      'in.(open,"on hold","a,b")',
      inList('title', ['open', 'on hold', 'a,b'], 'text'),
    ],
    [
      'in with escapes inside quotes',
      'title',
      'in.("say \\"hi\\"","back\\\\slash")',
      inList('title', ['say "hi"', 'back\\slash'], 'text'),
    ],
    ['in ignores whitespace around items', 'n', 'in.( 1 , 2,3 )', inList('n', [1, 2, 3], 'integer')],
    ['in keeps an empty quoted value', 'title', 'in.("",x)', inList('title', ['', 'x'], 'text')],
    ['in on booleans', 'done', 'in.(true,false)', inList('done', [true, false], 'boolean')],
    [
      'in on timestamps',
      'due',
      'in.(2024-01-01,2024-01-02)',
      inList('due', ['2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z'], 'timestamp'),
    ],
    ['in with a single value', 'n', 'in.(7)', inList('n', [7], 'integer')],
    [
      `in with ${MAX_IN_VALUES} values`,
      'n',
      `in.(${Array.from({ length: MAX_IN_VALUES }, (_, i) => i).join(',')})`,
      inList(
        'n',
        Array.from({ length: MAX_IN_VALUES }, (_, i) => i),
        'integer',
      ),
    ],
    ['is.null', 'due', 'is.null', { kind: 'is-null', expr: col('due'), negated: false }],
    ['is.not_null', 'title', 'is.not_null', { kind: 'is-null', expr: col('title'), negated: true }],
    ['is.null on json', 'meta', 'is.null', { kind: 'is-null', expr: col('meta'), negated: false }],
    ['is.not_null on json', 'meta', 'is.not_null', { kind: 'is-null', expr: col('meta'), negated: true }],
    ['is.true', 'done', 'is.true', cmp('=', 'done', true, 'boolean')],
    ['is.false', 'done', 'is.false', cmp('=', 'done', false, 'boolean')],
    ['lt.@now on a timestamp is the request time, as in filter=', 'due', 'lt.@now', cmp('<', 'due', NOW, 'timestamp')],
    [
      'in.(@now,...) on a timestamp',
      'due',
      'in.(@now,2024-01-01)',
      inList('due', [NOW, '2024-01-01T00:00:00.000Z'], 'timestamp'),
    ],
  ];
  for (const [name, column, raw, expected] of scenarios) {
    it(name, () => assert.deepEqual(parseShorthand(column, raw, columns, NOW), expected));
  }

  it('returns frozen nodes', () => {
    const expr = parseShorthand('n', 'in.(1,2)', columns, NOW);
    assert.ok(
      Object.isFrozen(expr) && expr.kind === 'in' && Object.isFrozen(expr.values) && expr.values.every(Object.isFrozen),
    );
  });
});

describe('parseShorthand: errors → VALIDATION_FILTER "column=op.value: ..."', () => {
  const scenarios: [name: string, column: string, raw: string, message: string, suggestion: RegExp][] = [
    [
      'unknown column',
      'titel',
      'eq.x',
      'titel=eq.x: unknown column "titel"',
      /^Use one of the columns: done, due, id, meta, n, price, title\.$/,
    ],
    [
      'unknown operator',
      'done',
      'equals.true',
      'done=equals.true: unknown operator "equals"',
      /eq, neq, gt, gte, lt, lte, like, ilike, in, is.*done=is\.true/,
    ],
    ['no operator at all', 'done', 'true', 'done=true: unknown operator "true"', /done=is\.true/],
    ['operator without a value', 'n', 'eq', 'n=eq: expected a value after "eq."', /n=gte\.3/],
    ['operators are lower-case', 'n', 'EQ.1', 'n=EQ.1: unknown operator "EQ"', /eq, neq/],
    [
      'integer with a decimal',
      'n',
      'eq.1.5',
      'n=eq.1.5: expected a whole number (integer) for column "n", found "1.5"',
      /n=gte\.3/,
    ],
    [
      'integer with an exponent',
      'n',
      'eq.1e3',
      'n=eq.1e3: expected a whole number (integer) for column "n", found "1e3"',
      /n=gte\.3/,
    ],
    [
      'integer beyond the safe range',
      'n',
      'gt.9007199254740993',
      'n=gt.9007199254740993: expected a whole number (integer) for column "n", found "9007199254740993"',
      /n=gte\.3/,
    ],
    ['integer empty', 'n', 'eq.', 'n=eq.: expected a whole number (integer) for column "n", found ""', /n=gte\.3/],
    [
      'number not numeric',
      'price',
      'lt.cheap',
      'price=lt.cheap: expected a number for column "price", found "cheap"',
      /price=gte\.1\.5/,
    ],
    ['number empty', 'price', 'lt.', 'price=lt.: expected a number for column "price", found ""', /price=gte/],
    [
      'number infinite',
      'price',
      'lt.Infinity',
      'price=lt.Infinity: expected a number for column "price", found "Infinity"',
      /price=gte/,
    ],
    [
      'boolean not true/false',
      'done',
      'eq.yes',
      'done=eq.yes: expected true or false (boolean) for column "done", found "yes"',
      /done=is\.true/,
    ],
    [
      'boolean in upper case',
      'done',
      'eq.TRUE',
      'done=eq.TRUE: expected true or false (boolean) for column "done", found "TRUE"',
      /done=is\.true/,
    ],
    [
      'timestamp unparseable',
      'due',
      'lt.soon',
      /^due=lt\.soon: expected a quoted ISO date .* for column "due", found "soon"$/.source,
      /due=lt\.2024/,
    ],
    [
      'json compared',
      'meta',
      'eq.{}',
      /^meta=eq\.\{\}: expected null .* for column "meta", found "\{\}"$/.source,
      /is\.null or is\.not_null/,
    ],
    ['json in', 'meta', 'in.(1)', /^meta=in\.\(1\): expected null/.source, /is\.null or is\.not_null/],
    [
      'like on a number',
      'price',
      'like.1*',
      'price=like.1*: like needs a text column, but "price" is number',
      /price=gte\.1\.5/,
    ],
    [
      'ilike on json',
      'meta',
      'ilike.*x*',
      'meta=ilike.*x*: ilike needs a text column, but "meta" is json',
      /meta=is\.null/,
    ],
    [
      'in without parentheses',
      'n',
      'in.1,2',
      'n=in.1,2: expected a list in parentheses after "in."',
      /n=in\.\(open,"on hold"\)/,
    ],
    [
      'in with an unclosed parenthesis',
      'n',
      'in.(1,2',
      'n=in.(1,2: expected a list in parentheses after "in."',
      /in\.\(a,b,c\)/,
    ],
    ['in with an empty list', 'n', 'in.()', 'n=in.(): in needs at least one value', /in\.\(a,b,c\)/],
    [
      'in with a bad value',
      'n',
      'in.(1,x)',
      'n=in.(1,x): expected a whole number (integer) for column "n", found "x"',
      /n=gte\.3/,
    ],
    [
      'in with an unterminated quote',
      'title',
      'in.("a,b)',
      'title=in.("a,b): unterminated quoted value in the in list',
      /quoting/,
    ],
    [
      'in with junk after a quote',
      'title',
      'in.("a"b)',
      'title=in.("a"b): expected "," after a quoted value in the in list',
      /quoting/,
    ],
    [
      `in with more than ${MAX_IN_VALUES} values`,
      'n',
      `in.(${Array.from({ length: MAX_IN_VALUES + 1 }, (_, i) => i).join(',')})`,
      /^n=in\.\(0,1,2.*…: in accepts at most 100 values$/.source,
      /Split/,
    ],
    [
      'is with an unknown value',
      'due',
      'is.empty',
      'due=is.empty: expected one of is.null, is.not_null, is.true, is.false, found "is.empty"',
      /due=is\.null/,
    ],
    [
      'is.true on a text column',
      'title',
      'is.true',
      'title=is.true: is.true needs a boolean column, but "title" is text',
      /title=is\.null/,
    ],
    [
      'is.null in upper case',
      'due',
      'is.NULL',
      'due=is.NULL: expected one of is.null, is.not_null, is.true, is.false, found "is.NULL"',
      /is\.null/,
    ],
  ];
  for (const [name, column, raw, message, suggestion] of scenarios) {
    it(name, () => {
      assert.throws(
        () => parseShorthand(column, raw, columns, NOW),
        (error: unknown) => {
          assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
          assert.equal(error.code, 'VALIDATION_FILTER');
          if (message.startsWith('^')) assert.match(error.message, new RegExp(message));
          else assert.equal(error.message, message);
          assert.match(error.suggestion, suggestion);
          return true;
        },
      );
    });
  }
});
