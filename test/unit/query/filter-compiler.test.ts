import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/errors/app-error.js';
import { compileFilter, type FilterScope } from '../../../src/query/filter-compiler.js';
import { escapeLike } from '../../../src/query/literal-values.js';
import { normaliseTimestamp } from '../../../src/lib/timestamps.js';
import { parseFilter } from '../../../src/query/filter-parser.js';
import type { CompareOp, Expr, ValueType } from '../../../src/query/sql-tree.js';

const NOW = '2024-05-01T10:00:00.000Z';

const columns = new Map<string, ValueType>([
  ['id', 'text'],
  ['created_at', 'timestamp'],
  ['title', 'text'],
  ['owner', 'text'],
  ['done', 'boolean'],
  ['n', 'integer'],
  ['price', 'number'],
  ['due', 'timestamp'],
  ['meta', 'json'],
]);

const authColumns = new Map<string, ValueType>([
  ['role', 'text'],
  ['age', 'integer'],
  ['verified', 'boolean'],
  ['joined', 'timestamp'],
  ['prefs', 'json'],
]);

const filterScope: FilterScope = { parameter: 'filter', columns, now: NOW };

function compile(source: string, extra: Partial<FilterScope> = {}): Expr {
  return compileFilter(parseFilter(source, extra.parameter ?? 'filter'), { ...filterScope, ...extra });
}

/** A rule scope: auth fields typed, with this caller and body. */
function rule(auth: Record<string, unknown> | null, body?: Record<string, unknown>): Partial<FilterScope> {
  return { parameter: 'rules.view', authColumns, auth, ...(body !== undefined && { body }) };
}

const col = (name: string): Expr => ({ kind: 'column', name });
const val = (value: unknown, type: ValueType): Expr => ({ kind: 'value', value, type });
const cmp = (op: CompareOp, left: Expr, right: Expr): Expr => ({ kind: 'compare', op, left, right });
const isNull = (expr: Expr, negated = false): Expr => ({ kind: 'is-null', expr, negated });
const like = (expr: Expr, pattern: string, negated = false): Expr => ({
  kind: 'like',
  expr,
  pattern,
  caseInsensitive: true,
  negated,
});
const bool = (value: boolean): Expr => ({ kind: 'bool', value });

describe('compileFilter: comparisons with a column coerce the literal to its type', () => {
  const scenarios: [name: string, source: string, expected: Expr, extra?: Partial<FilterScope>][] = [
    ['text = double-quoted string', 'title = "x"', cmp('=', col('title'), val('x', 'text'))],
    ['text != single-quoted string', "title != 'x'", cmp('!=', col('title'), val('x', 'text'))],
    ['text ordering', 'title >= "m"', cmp('>=', col('title'), val('m', 'text'))],
    ['integer = whole number', 'n = -4', cmp('=', col('n'), val(-4, 'integer'))],
    ['integer = whole number written with an exponent', 'n = 1e3', cmp('=', col('n'), val(1000, 'integer'))],
    ['integer < decimal stays a number', 'n < 2.5', cmp('<', col('n'), val(2.5, 'number'))],
    ['integer > huge number stays a number', 'n > 1e20', cmp('>', col('n'), val(1e20, 'number'))],
    ['number = integer literal', 'price = 3', cmp('=', col('price'), val(3, 'number'))],
    ['number <= decimal', 'price <= 9.99', cmp('<=', col('price'), val(9.99, 'number'))],
    ['boolean = false', 'done = false', cmp('=', col('done'), val(false, 'boolean'))],
    ['timestamp < date only', 'due < "2024-01-31"', cmp('<', col('due'), val('2024-01-31T00:00:00.000Z', 'timestamp'))],
    [
      'timestamp with offset normalised to UTC',
      'due >= "2024-01-31T12:00:00+02:00"',
      cmp('>=', col('due'), val('2024-01-31T10:00:00.000Z', 'timestamp')),
    ],
    [
      'timestamp without zone read as UTC',
      "due > '2024-01-31 08:30'",
      cmp('>', col('due'), val('2024-01-31T08:30:00.000Z', 'timestamp')),
    ],
    ['timestamp < @now', 'due < @now', cmp('<', col('due'), val(NOW, 'timestamp'))],
    ['literal on the left keeps its side', '3 < n', cmp('<', val(3, 'integer'), col('n'))],
    ['column = null is IS NULL', 'due = null', isNull(col('due'))],
    ['null != column is IS NOT NULL', 'null != owner', isNull(col('owner'), true)],
    ['json column = null', 'meta = null', isNull(col('meta'))],
    ['json column != null', 'meta != null', isNull(col('meta'), true)],
    ['~ is a case-insensitive contains', 'title ~ "Urgent"', like(col('title'), '%Urgent%')],
    ['!~ negates it', 'title !~ "x"', like(col('title'), '%x%', true)],
    ['~ escapes LIKE wildcards and backslashes', 'title ~ "50%_a\\\\b"', like(col('title'), '%50\\%\\_a\\\\b%')],
    ['column vs column of the same type', 'due > created_at', cmp('>', col('due'), col('created_at'))],
    ['integer vs number columns mix', 'n < price', cmp('<', col('n'), col('price'))],
  ];
  for (const [name, source, expected, extra] of scenarios) {
    it(name, () => assert.deepEqual(compile(source, extra), expected));
  }
});

describe('compileFilter: logic and literal-only comparisons', () => {
  const scenarios: [name: string, source: string, expected: Expr][] = [
    [
      'the contract example',
      '(done = false && due < @now) || title ~ "urgent"',
      {
        kind: 'or',
        items: [
          {
            kind: 'and',
            items: [cmp('=', col('done'), val(false, 'boolean')), cmp('<', col('due'), val(NOW, 'timestamp'))],
          },
          like(col('title'), '%urgent%'),
        ],
      },
    ],
    ['! becomes not', '!(n = 1)', { kind: 'not', expr: cmp('=', col('n'), val(1, 'integer')) }],
    ['string vs string', '"a" = "a"', cmp('=', val('a', 'text'), val('a', 'text'))],
    ['number vs number', '1 < 2.5', cmp('<', val(1, 'number'), val(2.5, 'number'))],
    ['boolean vs boolean', 'true != false', cmp('!=', val(true, 'boolean'), val(false, 'boolean'))],
    [
      '@now vs a date string',
      '@now > "2024-01-01"',
      cmp('>', val(NOW, 'timestamp'), val('2024-01-01T00:00:00.000Z', 'timestamp')),
    ],
    ['null = null is true', 'null = null', bool(true)],
    ['null != null is false', 'null != null', bool(false)],
    ['a value = null is false', '1 = null', bool(false)],
    ['a value != null is true', '"x" != null', bool(true)],
    ['a string contains', '"Hello" ~ "ell"', like(val('Hello', 'text'), '%ell%')],
  ];
  for (const [name, source, expected] of scenarios) {
    it(name, () => assert.deepEqual(compile(source), expected));
  }

  it('returns deeply frozen plain objects', () => {
    const expr = compile('(done = false && due < @now) || !(title ~ "x") || meta = null');
    const visit = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      assert.ok(Object.isFrozen(value), `not frozen: ${JSON.stringify(value)}`);
      Object.values(value).forEach(visit);
    };
    visit(expr);
  });
});

describe('compileFilter: @request.auth and @request.body in rules', () => {
  const user = { id: 'u1', role: 'admin', age: 30, verified: true, joined: '2024-01-01T00:00:00Z', prefs: null };
  const scenarios: [name: string, source: string, scope: Partial<FilterScope>, expected: Expr][] = [
    ['anonymous id is ""', 'owner = @request.auth.id', rule(null), cmp('=', col('owner'), val('', 'text'))],
    ['signed-in id', 'owner = @request.auth.id', rule(user), cmp('=', col('owner'), val('u1', 'text'))],
    [
      'literal vs auth value: anonymous',
      '@request.auth.id != ""',
      rule(null),
      cmp('!=', val('', 'text'), val('', 'text')),
    ],
    [
      'literal vs auth value: signed in',
      '@request.auth.id != ""',
      rule(user),
      cmp('!=', val('u1', 'text'), val('', 'text')),
    ],
    ['auth field of an anonymous caller is null', 'owner = @request.auth.role', rule(null), isNull(col('owner'))],
    [
      'auth field the user lacks is null',
      'owner != @request.auth.role',
      rule({ id: 'u2' }),
      isNull(col('owner'), true),
    ],
    ['auth text value', 'owner = @request.auth.role', rule(user), cmp('=', col('owner'), val('admin', 'text'))],
    [
      'auth integer vs number column',
      'price < @request.auth.age',
      rule(user),
      cmp('<', col('price'), val(30, 'number')),
    ],
    [
      'auth timestamp is normalised',
      'due < @request.auth.joined',
      rule(user),
      cmp('<', col('due'), val('2024-01-01T00:00:00.000Z', 'timestamp')),
    ],
    [
      'auth boolean vs literal',
      '@request.auth.verified = true',
      rule(user),
      cmp('=', val(true, 'boolean'), val(true, 'boolean')),
    ],
    ['ordering with a null auth value never holds', 'n < @request.auth.age', rule(null), bool(false)],
    [
      'auth value of the wrong runtime type: = never holds',
      'n = @request.auth.age',
      rule({ ...user, age: 1.5 }),
      bool(false),
    ],
    [
      'auth value of the wrong runtime type: != always holds',
      'n != @request.auth.age',
      rule({ ...user, age: 'old' }),
      bool(true),
    ],
    ['auth json null = null', '@request.auth.prefs = null', rule(user), bool(true)],
    ['auth value contains', '@request.auth.role ~ "adm"', rule(user), like(val('admin', 'text'), '%adm%')],
    [
      'body value takes the column type',
      'title = @request.body.title',
      rule(user, { title: 'x' }),
      cmp('=', col('title'), val('x', 'text')),
    ],
    ['body integer', 'n >= @request.body.n', rule(user, { n: 2 }), cmp('>=', col('n'), val(2, 'integer'))],
    [
      'body timestamp',
      'due = @request.body.due',
      rule(user, { due: '2024-02-02T00:00:00+01:00' }),
      cmp('=', col('due'), val('2024-02-01T23:00:00.000Z', 'timestamp')),
    ],
    ['missing body field is null', 'title = @request.body.title', rule(user, {}), isNull(col('title'))],
    [
      'body field named like a prototype member is missing, not inherited',
      'title = @request.body.constructor',
      rule(user, {}),
      isNull(col('title')),
    ],
    ['body value of the wrong type never equals', 'title = @request.body.title', rule(user, { title: 5 }), bool(false)],
    [
      'body vs literal by JS type',
      '@request.body.role != "admin"',
      rule(user, { role: 'user' }),
      cmp('!=', val('user', 'text'), val('admin', 'text')),
    ],
    [
      'body vs body of the same type',
      '@request.body.a = @request.body.b',
      rule(user, { a: 'x', b: 'y' }),
      cmp('=', val('x', 'text'), val('y', 'text')),
    ],
    ['body vs body of different types', '@request.body.a = @request.body.b', rule(user, { a: 1, b: '1' }), bool(false)],
    ['body vs body both missing', '@request.body.a = @request.body.b', rule(user, {}), bool(true)],
    ['contains a body value', 'title ~ @request.body.q', rule(user, { q: 'a_b' }), like(col('title'), '%a\\_b%')],
    ['contains a missing body value never holds', 'title ~ @request.body.q', rule(user, {}), bool(false)],
    ['does not contain a missing body value always holds', 'title !~ @request.body.q', rule(user, {}), bool(true)],
    ['isset: a field sent with a value', '@request.body.owner:isset', rule(user, { owner: 'u2' }), bool(true)],
    [
      'isset: a field sent as null is set (= null cannot tell)',
      '@request.body.owner:isset',
      rule(user, { owner: null }),
      bool(true),
    ],
    ['isset: a field not sent', '@request.body.owner:isset', rule(user, { title: 'x' }), bool(false)],
    [
      'isset: password (writable, not a filterable column)',
      '@request.body.password:isset',
      rule(user, { password: 'x' }),
      bool(true),
    ],
    [
      '!isset with && on a column',
      'owner = @request.auth.id && !@request.body.owner:isset',
      rule(user, { owner: null }),
      { kind: 'and', items: [cmp('=', col('owner'), val('u1', 'text')), { kind: 'not', expr: bool(true) }] },
    ],
  ];
  for (const [name, source, scope, expected] of scenarios) {
    it(name, () => assert.deepEqual(compile(source, scope), expected));
  }
});

describe('compileFilter: errors → VALIDATION_FILTER naming column, type and position', () => {
  const allColumns = 'created_at, done, due, id, meta, n, owner, price, title';
  const scenarios: [
    name: string,
    source: string,
    message: string | RegExp,
    suggestion: RegExp,
    extra?: Partial<FilterScope>,
  ][] = [
    [
      'unknown column',
      'ownr = "x"',
      'filter: unknown column "ownr" at character 1',
      new RegExp(`^Use one of the columns: ${allColumns}\\.$`),
    ],
    [
      'unknown column on the right',
      'title = titel',
      'filter: unknown column "titel" at character 9',
      /created_at, done/,
    ],
    [
      'string for a boolean',
      'done = "yes"',
      'filter: expected true or false (boolean) to compare with column "done" (boolean), found "yes" at character 8',
      /done = true/,
    ],
    [
      'number for a text column',
      'title = 5',
      'filter: expected a quoted string (text) to compare with column "title" (text), found 5 at character 9',
      /title = "x"/,
    ],
    [
      'string for an integer',
      "n = '3'",
      `filter: expected a whole number (integer) to compare with column "n" (integer), found '3' at character 5`,
      /n = 3/,
    ],
    [
      'boolean for a number',
      'price = true',
      'filter: expected a number to compare with column "price" (number), found true at character 9',
      /price >= 1.5/,
    ],
    [
      'number for a timestamp',
      'due < 5',
      new RegExp(
        String.raw`filter: expected a quoted ISO date .* \(timestamp\) ` +
          String.raw`to compare with column "due" \(timestamp\), found 5 at character 7`,
      ),
      /due < @now/,
    ],
    ['unparseable date', 'due < "yesterday"', /found the invalid date "yesterday" at character 7$/, /ISO 8601/],
    ['impossible date', 'due < "2024-02-30"', /found the invalid date "2024-02-30" at character 7$/, /ISO 8601/],
    [
      '@now for a text column',
      'title < @now',
      'filter: expected a quoted string (text) to compare with column "title" (text), found @now at character 9',
      /title = "x"/,
    ],
    [
      'decimal = integer column',
      'n = 1.5',
      'filter: expected a whole number (integer) to compare with column "n" (integer), found 1.5 at character 5',
      /< and >/,
    ],
    [
      'unsafe integer = integer column',
      'n != 9007199254740993',
      'filter: expected a whole number (integer) to compare with ' +
        'column "n" (integer), found 9007199254740993 at character 6',
      /whole numbers/,
    ],
    [
      'json compared with a value',
      'meta = 5',
      'filter: expected null (json columns can only be compared with null) ' +
        'to compare with column "meta" (json), found 5 at character 8',
      /meta != null/,
    ],
    [
      'json column vs json column',
      'meta = meta',
      'filter: cannot compare column "meta" (json) with column "meta" (json) at character 6',
      /json/,
    ],
    [
      'columns of different types',
      'title = n',
      'filter: cannot compare column "title" (text) with column "n" (integer) at character 7',
      /same type/,
    ],
    ['null with <', 'n < null', 'filter: null can only be compared with = or !=, not "<" at character 5', /x = null/],
    [
      'null with ~',
      'title ~ null',
      'filter: "~" needs a quoted string on its right, found null at character 9',
      /title ~ "urgent"/,
    ],
    [
      '~ on an integer column',
      'n ~ "1"',
      'filter: "~" needs a text column on its left, found column "n" (integer) at character 1',
      /title ~ "urgent"/,
    ],
    [
      '~ with a number',
      'title ~ 5',
      'filter: "~" needs a quoted string on its right, found 5 at character 9',
      /quoted string/,
    ],
    [
      '~ with a column on the right',
      'title !~ owner',
      'filter: "!~" needs a quoted string on its right, found column "owner" (text) at character 10',
      /quoted string/,
    ],
    [
      '~ with a string on the left and a column on the right',
      '"x" ~ title',
      'filter: "~" needs a quoted string on its right, found column "title" (text) at character 7',
      /quoted string/,
    ],
    [
      'string literal vs number literal',
      '"a" = 1',
      'filter: expected a quoted string (text) to compare with "a", found 1 at character 7',
      /same type/,
    ],
    [
      '@now vs number',
      '@now = 5',
      /filter: expected a quoted ISO date .* to compare with @now, found 5 at character 8/,
      /same type/,
    ],
    [
      '@request.auth in a filter',
      'owner = @request.auth.id',
      'filter: @request.auth.id is not available here at character 9',
      /only in table rules/,
    ],
    [
      '@request.body in a filter',
      'owner = @request.body.owner',
      'filter: @request.body.owner is not available here at character 9',
      /create and update rules/,
    ],
    [
      ':isset in a filter',
      '!@request.body.owner:isset',
      'filter: @request.body.owner:isset is not available here at character 2',
      /create and update rules/,
    ],
    [
      ':isset in a rule without a body',
      'owner = "x" || @request.body.owner:isset',
      'rules.view: @request.body.owner:isset is not available here at character 16',
      /create and update rules/,
      rule(null),
    ],
    [
      ':isset on a misspelt column (it would protect nothing)',
      '!@request.body.ownr:isset',
      'rules.view: unknown column "ownr" in @request.body.ownr:isset at character 2',
      /^Test a column the body may send: created_at, done, due, id, meta, n, owner, price, title\.$/,
      rule(null, {}),
    ],
    [
      ':isset on a prototype member name',
      '@request.body.constructor:isset',
      'rules.view: unknown column "constructor" in @request.body.constructor:isset at character 1',
      /Test a column/,
      rule(null, {}),
    ],
    [
      '@request.body in a rule without a body',
      'owner = @request.body.owner',
      'rules.view: @request.body.owner is not available here at character 9',
      /create and update rules/,
      rule(null),
    ],
    [
      'unknown auth field',
      '@request.auth.rol = "x"',
      'rules.view: unknown auth field "rol" in @request.auth.rol at character 1',
      /^Use one of the auth fields: age, id, joined, prefs, role, verified\.$/,
      rule(null),
    ],
    [
      'auth field named like a prototype member',
      '@request.auth.constructor = "x"',
      'rules.view: unknown auth field "constructor" in @request.auth.constructor at character 1',
      /auth fields/,
      rule(null),
    ],
    [
      'auth field of the wrong type, even when anonymous',
      'title = @request.auth.age',
      'rules.view: expected a quoted string (text) to compare with column ' +
        '"title" (text), found @request.auth.age (integer) at character 9',
      /title = "x"/,
      rule(null),
    ],
    [
      'auth json field vs a string',
      '@request.auth.prefs = "x"',
      'rules.view: cannot compare @request.auth.prefs (json) with "x" at character 21',
      /only with null/,
      rule(null),
    ],
    [
      'json column vs a body value',
      'meta = @request.body.meta',
      /rules.view: expected null .* found @request.body.meta at character 8/,
      /meta != null/,
      rule(null, {}),
    ],
  ];
  for (const [name, source, message, suggestion, extra] of scenarios) {
    it(name, () => {
      assert.throws(
        () => compile(source, extra),
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

describe('value helpers', () => {
  it('escapeLike escapes \\, % and _ and nothing else', () => {
    assert.equal(escapeLike('a\\b%c_d*e'), 'a\\\\b\\%c\\_d*e');
  });

  const timestamps: [input: string, expected: string | undefined][] = [
    ['2024-01-31', '2024-01-31T00:00:00.000Z'],
    ['2024-01-31T12:34:56Z', '2024-01-31T12:34:56.000Z'],
    ['2024-01-31T12:34:56.789123+05:30', '2024-01-31T07:04:56.789Z'],
    ['2024-01-31t12:34z', '2024-01-31T12:34:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2023-02-29', undefined],
    ['2024-13-01', undefined],
    ['1', undefined],
    ['tomorrow', undefined],
    ['', undefined],
  ];
  for (const [input, expected] of timestamps) {
    it(`normaliseTimestamp(${JSON.stringify(input)}) → ${String(expected)}`, () =>
      assert.equal(normaliseTimestamp(input), expected));
  }
});
