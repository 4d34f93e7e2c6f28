import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/errors/app-error.js';
import type { FilterNode, OperandNode } from '../../../src/query/filter-ast.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter } from '../../../src/query/filter-parser.js';

/** Renders a tree as an S-expression so that expected shapes fit on one line. */
function show(node: FilterNode): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `(${node.kind} ${node.items.map(show).join(' ')})`;
    case 'not':
      return `(not ${show(node.expr)})`;
    case 'comparison':
      return `(${node.op} ${operand(node.left)} ${operand(node.right)})`;
    case 'isset':
      return `(isset ${node.name})`;
  }
}

function operand(node: OperandNode): string {
  switch (node.kind) {
    case 'column':
      return node.name;
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return `#${node.value}`;
    case 'boolean':
      return String(node.value);
    case 'null':
      return 'null';
    case 'now':
      return '@now';
    case 'request':
      return `@${node.source}.${node.name}`;
  }
}

/** Asserts a VALIDATION_FILTER error with exactly this message. */
function assertSyntaxError(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, 'VALIDATION_FILTER');
    assert.equal(error.message, message);
    assert.match(error.suggestion, /\S/);
    return true;
  });
}

describe('parseFilter: valid expressions', () => {
  const scenarios: [name: string, source: string, expected: string][] = [
    ['a single comparison', 'title = "x"', '(= title "x")'],
    [
      'every comparison operator',
      'a = 1 && a != 1 && a > 1 && a >= 1 && a < 1 && a <= 1 && a ~ "x" && a !~ "x"',
      '(and (= a #1) (!= a #1) (> a #1) (>= a #1) (< a #1) (<= a #1) (~ a "x") (!~ a "x"))',
    ],
    ['&& binds tighter than ||', 'a = 1 || b = 2 && c = 3', '(or (= a #1) (and (= b #2) (= c #3)))'],
    ['parentheses override precedence', '(a = 1 || b = 2) && c = 3', '(and (or (= a #1) (= b #2)) (= c #3))'],
    ['chains are flattened', 'a=1&&b=2&&c=3||d=4||e=5', '(or (and (= a #1) (= b #2) (= c #3)) (= d #4) (= e #5))'],
    ['! negates the comparison that follows, not the &&', '!a = 1 && b = 2', '(and (not (= a #1)) (= b #2))'],
    ['! before a group', '!(a = 1 || b = 2)', '(not (or (= a #1) (= b #2)))'],
    ['double negation is kept', '!!a = 1', '(not (not (= a #1)))'],
    ['redundant parentheses vanish', '((a = 1))', '(= a #1)'],
    ['no whitespace at all', 'a!=1&&b>=-2||!(c<=3)', '(or (and (!= a #1) (>= b #-2)) (not (<= c #3)))'],
    ['tabs and newlines are whitespace', '\ta =\n1\r\n', '(= a #1)'],
    ['single-quoted string with escaped quote', "name = 'it\\'s'", '(= name "it\'s")'],
    [
      'double-quoted string with escaped quote and backslash',
      'name = "say \\"hi\\" \\\\ bye"',
      '(= name "say \\"hi\\" \\\\ bye")',
    ],
    ['the other quote needs no escape', `name = "it's" || name = 'a"b'`, '(or (= name "it\'s") (= name "a\\"b"))'],
    ['empty string', 'name != ""', '(!= name "")'],
    ['unicode inside strings', 'name ~ "héllo 😀"', '(~ name "héllo 😀")'],
    [
      'integers, decimals, negatives, exponents',
      'a = 0 || a = -7 || a = 1.25 || a = 1e3 || a = -2.5E-3',
      '(or (= a #0) (= a #-7) (= a #1.25) (= a #1000) (= a #-0.0025))',
    ],
    ['keywords', 'a = true || a = false || a = null', '(or (= a true) (= a false) (= a null))'],
    [
      '@now and request variables',
      'due < @now && owner = @request.auth.id && title = @request.body.title',
      '(and (< due @now) (= owner @auth.id) (= title @body.title))',
    ],
    ['literals on both sides', '@request.auth.id != ""', '(!= @auth.id "")'],
    ['column names with digits and underscores', 'a_1 = b2_', '(= a_1 b2_)'],
    ['a body presence test on its own', '@request.body.role:isset', '(isset role)'],
    [
      'a negated presence test with && (the protected-column rule)',
      'id = @request.auth.id && !@request.body.role:isset',
      '(and (= id @auth.id) (not (isset role)))',
    ],
    [
      'presence tests with || and grouping',
      '!(@request.body.a:isset || @request.body.b:isset) || x = 1',
      '(or (not (or (isset a) (isset b))) (= x #1))',
    ],
  ];
  for (const [name, source, expected] of scenarios) {
    it(name, () => assert.equal(show(parseFilter(source)), expected));
  }

  it('records 0-based positions of every node', () => {
    const node = parseFilter('  title ~ "x" && !(n >= 2)');
    assert.equal(node.kind, 'and');
    if (node.kind !== 'and') return;
    const [contains, not] = node.items;
    assert.equal(node.position, 2);
    assert.deepEqual(
      contains?.kind === 'comparison' && [
        contains.position,
        contains.operatorPosition,
        contains.left.position,
        contains.right.position,
      ],
      [2, 8, 2, 10],
    );
    assert.equal(not?.position, 17);
    assert.deepEqual(
      not?.kind === 'not' &&
        not.expr.kind === 'comparison' && [not.expr.position, not.expr.operatorPosition, not.expr.right.position],
      [19, 21, 24],
    );
  });

  it('keeps the source text of operands for messages', () => {
    const node = parseFilter("a = 'x\\'y'");
    assert.equal(node.kind === 'comparison' && node.right.text, "'x\\'y'");
  });

  it('returns frozen nodes', () => {
    const node = parseFilter('a = 1 && !(b = "x")');
    assert.ok(Object.isFrozen(node));
    assert.ok(node.kind === 'and' && Object.isFrozen(node.items) && node.items.every(Object.isFrozen));
  });

  it(`accepts exactly ${MAX_FILTER_DEPTH} levels of nesting`, () => {
    const source = `${'('.repeat(MAX_FILTER_DEPTH - 1)}!a = 1${')'.repeat(MAX_FILTER_DEPTH - 1)}`;
    assert.equal(show(parseFilter(source)), '(not (= a #1))');
  });

  it(`accepts exactly ${MAX_FILTER_LENGTH} characters`, () => {
    const source = `a = "${'x'.repeat(MAX_FILTER_LENGTH - 6)}"`;
    assert.equal(source.length, MAX_FILTER_LENGTH);
    assert.equal(parseFilter(source).kind, 'comparison');
  });
});

describe('parseFilter: syntax errors → VALIDATION_FILTER with parameter and 1-based position', () => {
  const scenarios: [name: string, source: string, message: string][] = [
    [
      'bare operand before &&',
      'title && done = false',
      'filter: expected a comparison operator after "title" at character 7',
    ],
    ['bare operand at the end', 'done', 'filter: expected a comparison operator after "done" at character 5'],
    [
      'missing right operand',
      'a = ',
      'filter: expected a value after "=" but found the end of the expression at character 5',
    ],
    ['operator instead of operand', 'a = = 1', 'filter: expected a value after "=" but found "=" at character 5'],
    [
      'empty expression',
      '',
      'filter: expected a comparison, "(" or "!" but found the end of the expression at character 1',
    ],
    [
      'whitespace only',
      '   ',
      'filter: expected a comparison, "(" or "!" but found the end of the expression at character 4',
    ],
    [
      'dangling &&',
      'a = 1 &&',
      'filter: expected a comparison, "(" or "!" but found the end of the expression at character 9',
    ],
    ['leading ||', '|| a = 1', 'filter: expected a comparison, "(" or "!" but found "||" at character 1'],
    [
      'unclosed parenthesis',
      '(a = 1',
      'filter: expected ")" to close the "(" at character 1, found the end of the expression at character 7',
    ],
    ['junk inside parentheses', '(a = 1 b = 2)', 'filter: expected "&&", "||" or ")" before "b" at character 8'],
    ['unmatched closing parenthesis', 'a = 1)', 'filter: unexpected ")" without a matching "(" at character 6'],
    ['two comparisons without a connective', 'a = 1 b = 2', 'filter: expected "&&" or "||" before "b" at character 7'],
    ['chained comparison', 'a = b = c', 'filter: expected "&&" or "||" before "=" at character 7'],
    ['empty parentheses', '()', 'filter: expected a comparison, "(" or "!" but found ")" at character 2'],
    ['double equals', 'a == 1', 'filter: unexpected "==" at character 3'],
    ['single ampersand', 'a = 1 & b = 2', 'filter: expected "&&" but found a single "&" at character 7'],
    ['single pipe', 'a = 1 | b = 2', 'filter: expected "||" but found a single "|" at character 7'],
    ['unknown character', 'a = 1 # b', 'filter: unexpected character "#" at character 7'],
    ['non-ASCII outside a string', 'tïtle = 1', 'filter: unexpected character "ï" at character 2'],
    ['emoji outside a string', '😀 = 1', 'filter: unexpected character "😀" at character 1'],
    ['unterminated double-quoted string', 'a = "abc', 'filter: unterminated string at character 5'],
    ['unterminated single-quoted string', "a = 'abc\\'", 'filter: unterminated string at character 5'],
    ['string ending in a lone backslash', 'a = "abc\\', 'filter: unterminated string at character 5'],
    ['unknown escape', 'a = "x\\ny"', 'filter: unknown escape "\\n" in a string at character 7'],
    ['upper-case column name', 'Title = "x"', 'filter: invalid column name "Title" at character 1'],
    ['column name starting with _', '_x = 1', 'filter: invalid column name "_x" at character 1'],
    ['upper-case keyword', 'done = TRUE', 'filter: invalid column name "TRUE" at character 8'],
    ['number glued to a name', 'a = 12abc', 'filter: malformed number "12a" at character 5'],
    ['number with two dots', 'a = 1.2.3', 'filter: malformed number "1.2." at character 5'],
    ['number with a dangling exponent', 'a = 1e', 'filter: malformed number "1e" at character 5'],
    ['number out of range', 'a = 1e999', 'filter: the number "1e999" is out of range at character 5'],
    ['lone minus', 'a = - 1', 'filter: unexpected character "-" at character 5'],
    ['unknown variable', 'a < @today', 'filter: unknown variable "@today" at character 5'],
    ['unknown request part', 'a = @request.query.x', 'filter: unknown variable "@request.query.x" at character 5'],
    ['request without field', 'a = @request.auth', 'filter: unknown variable "@request.auth" at character 5'],
    // @request.auth.team.plan is a relation path since issue 14 (checked by the compiler); body fields have none.
    [
      'request field with a dot',
      'a = @request.body.id.x',
      'filter: invalid field name "id.x" in "@request.body.id.x" at character 5',
    ],
    [
      'request field in upper case',
      'a = @request.body.Title',
      'filter: invalid field name "Title" in "@request.body.Title" at character 5',
    ],
    [
      ':isset on an auth field',
      '!@request.auth.role:isset',
      'filter: :isset applies only to @request.body.<field>, not to "@request.auth.role" at character 20',
    ],
    [
      ':isset on @now',
      '@now:isset',
      'filter: :isset applies only to @request.body.<field>, not to "@now" at character 5',
    ],
    [':isset on a column', 'role:isset', 'filter: :isset applies only to @request.body.<field> at character 5'],
    [
      'an unknown modifier',
      '@request.body.role:length = 1',
      'filter: unknown modifier ":length" after "@request.body.role" at character 19',
    ],
    [
      ':isset compared like PocketBase',
      '@request.body.role:isset = false',
      'filter: "@request.body.role:isset" is a test on its own and cannot be compared with "=" at character 26',
    ],
    [
      ':isset as a value',
      'a = @request.body.role:isset',
      'filter: "@request.body.role:isset" is a test on its own and cannot be compared at character 5',
    ],
    [
      '! before an operator',
      'a = 1 && !',
      'filter: expected a comparison, "(" or "!" but found the end of the expression at character 11',
    ],
    [
      'the message cuts long tokens short',
      `a = 1 ${'b'.repeat(100)}`,
      `filter: expected "&&" or "||" before "${'b'.repeat(40)}…" at character 7`,
    ],
  ];
  for (const [name, source, message] of scenarios) {
    it(name, () => assertSyntaxError(() => parseFilter(source), message));
  }

  it('names the parameter it was given', () => {
    assertSyntaxError(
      () => parseFilter('ownr', 'rules.view'),
      'rules.view: expected a comparison operator after "ownr" at character 5',
    );
  });

  it('suggests a correct example', () => {
    assert.throws(
      () => parseFilter('title && done'),
      (error: unknown) => isAppError(error) && error.suggestion.includes('title ~ "x" && done = false'),
    );
  });

  it(`refuses more than ${MAX_FILTER_LENGTH} characters before looking at them`, () => {
    assertSyntaxError(
      () => parseFilter(`a = "${'x'.repeat(MAX_FILTER_LENGTH)}"`),
      `filter: the expression is longer than ${MAX_FILTER_LENGTH} characters at character ${MAX_FILTER_LENGTH + 1}`,
    );
  });

  it(`refuses parentheses nested deeper than ${MAX_FILTER_DEPTH}`, () => {
    const source = `${'('.repeat(MAX_FILTER_DEPTH + 1)}a = 1${')'.repeat(MAX_FILTER_DEPTH + 1)}`;
    assertSyntaxError(
      () => parseFilter(source),
      `filter: the expression nests deeper than ${MAX_FILTER_DEPTH} ` +
        `levels of "(" and "!" at character ${MAX_FILTER_DEPTH + 1}`,
    );
  });

  it('counts ! towards the nesting depth', () => {
    const source = `${'!('.repeat(16)}!a = 1${')'.repeat(16)}`;
    assertSyntaxError(
      () => parseFilter(source),
      `filter: the expression nests deeper than ${MAX_FILTER_DEPTH} levels of "(" and "!" at character 33`,
    );
  });

  it('survives 4000 open parentheses without a stack overflow', () => {
    assertSyntaxError(
      () => parseFilter('('.repeat(4000)),
      `filter: the expression nests deeper than ${MAX_FILTER_DEPTH} levels of "(" and "!" at character 33`,
    );
  });

  it('handles a long flat chain of comparisons iteratively', () => {
    const source = Array.from({ length: 350 }, (_, i) => `a = ${i}`).join(' || ');
    assert.ok(source.length <= MAX_FILTER_LENGTH);
    const node = parseFilter(source);
    assert.equal(node.kind === 'or' && node.items.length, 350);
  });
});
