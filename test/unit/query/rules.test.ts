import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/errors/app-error.js';
import type { FilterScope } from '../../../src/query/filter-compiler.js';
import { parseRule, ruleToExpr, type RuleOperation } from '../../../src/query/rules.js';
import type { ValueType } from '../../../src/query/sql-tree.js';

const NOW = '2024-05-01T10:00:00.000Z';

const columns = new Map<string, ValueType>([
  ['id', 'text'],
  ['created_at', 'timestamp'],
  ['owner', 'text'],
  ['title', 'text'],
  ['public', 'boolean'],
  ['n', 'integer'],
  ['meta', 'json'],
]);

const authColumns = new Map<string, ValueType>([
  ['id', 'text'],
  ['email', 'text'],
  ['role', 'text'],
  ['level', 'integer'],
]);

const scope = (auth: Record<string, unknown> | null, body?: Record<string, unknown>): FilterScope => ({
  parameter: 'rules.view',
  columns,
  now: NOW,
  auth,
  authColumns,
  ...(body !== undefined && { body }),
});

describe('parseRule: accepted rules', () => {
  it('null locks the operation', () =>
    assert.deepEqual(parseRule(null, 'list', columns, authColumns), { kind: 'locked' }));
  it('"" opens the operation', () => assert.deepEqual(parseRule('', 'delete', columns, authColumns), { kind: 'open' }));

  const scenarios: [name: string, rule: string, operation: RuleOperation][] = [
    ['owner only', 'owner = @request.auth.id', 'view'],
    ['signed-in callers', '@request.auth.id != ""', 'list'],
    ['public rows or own rows', 'public = true || owner = @request.auth.id', 'list'],
    ['role check', '@request.auth.role = "admin"', 'delete'],
    ['integer auth field', 'n <= @request.auth.level', 'update'],
    ['body in a create rule', '@request.body.owner = @request.auth.id', 'create'],
    ['body in an update rule', 'title = @request.body.title || @request.body.title = null', 'update'],
    ['body compared with a column', 'n < @request.body.n', 'create'],
    ['body contains', '@request.body.title ~ "x"', 'create'],
    ['a presence test in a create rule', '!@request.body.owner:isset', 'create'],
    ['the protected-column update rule', 'owner = @request.auth.id && !@request.body.owner:isset', 'update'],
    ['@now', 'created_at < @now', 'view'],
  ];
  for (const [name, rule, operation] of scenarios) {
    it(name, () => {
      const parsed = parseRule(rule, operation, columns, authColumns);
      assert.equal(parsed.kind, 'expression');
      assert.ok(
        parsed.kind === 'expression' &&
          parsed.source === rule &&
          parsed.operation === operation &&
          Object.isFrozen(parsed),
      );
    });
  }

  it('without an auth table only @request.auth.id exists', () => {
    assert.equal(parseRule('owner = @request.auth.id', 'view', columns, null).kind, 'expression');
    assert.throws(
      () => parseRule('owner = @request.auth.email', 'view', columns, undefined),
      (error: unknown) =>
        isAppError(error) &&
        error.message === 'rules.view: unknown auth field "email" in @request.auth.email at character 9' &&
        /: id\.$/.test(error.suggestion),
    );
  });
});

describe('parseRule: invalid rules → VALIDATION_FAILED naming the rule', () => {
  const scenarios: [name: string, rule: string, operation: RuleOperation, message: string, suggestion: RegExp][] = [
    [
      'unknown column',
      'ownr = @request.auth.id',
      'view',
      'rules.view: unknown column "ownr" at character 1',
      /^Use one of the columns: created_at, id, meta, n, owner, public, title\.$/,
    ],
    [
      'syntax error',
      'owner = ',
      'update',
      'rules.update: expected a value after "=" but found the end of the expression at character 9',
      /title ~ "x" && done = false/,
    ],
    [
      'bare operand',
      'public',
      'list',
      'rules.list: expected a comparison operator after "public" at character 7',
      /for example/,
    ],
    [
      'whitespace only',
      '  ',
      'list',
      'rules.list: expected a comparison, "(" or "!" but found the end of the expression at character 3',
      /for example/,
    ],
    [
      'unknown auth field',
      'owner = @request.auth.name',
      'view',
      'rules.view: unknown auth field "name" in @request.auth.name at character 9',
      /^Use one of the auth fields: email, id, level, role\.$/,
    ],
    [
      'auth field of the wrong type',
      'title = @request.auth.level',
      'view',
      'rules.view: expected a quoted string (text) to compare with column ' +
        '"title" (text), found @request.auth.level (integer) at character 9',
      /title = "x"/,
    ],
    [
      'type mismatch with a literal',
      'public = "yes"',
      'list',
      'rules.list: expected true or false (boolean) to compare with ' +
        'column "public" (boolean), found "yes" at character 10',
      /public = true/,
    ],
    [
      'body in a view rule',
      '@request.body.owner = "x"',
      'view',
      'rules.view: @request.body.owner is not available here at character 1',
      /create and update rules/,
    ],
    [
      'body in a list rule',
      'owner = @request.body.owner',
      'list',
      'rules.list: @request.body.owner is not available here at character 9',
      /create and update rules/,
    ],
    [
      'body in a delete rule',
      'owner = @request.body.owner',
      'delete',
      'rules.delete: @request.body.owner is not available here at character 9',
      /create and update rules/,
    ],
    [
      'body against a json column',
      'meta = @request.body.meta',
      'create',
      'rules.create: expected null (json columns can only be compared with null) to ' +
        'compare with column "meta" (json), found @request.body.meta at character 8',
      /meta != null/,
    ],
    [
      'a presence test in a list rule',
      '!@request.body.owner:isset',
      'list',
      'rules.list: @request.body.owner:isset is not available here at character 2',
      /create and update rules/,
    ],
    [
      ':isset on a misspelt column',
      'owner = @request.auth.id && !@request.body.ownr:isset',
      'update',
      'rules.update: unknown column "ownr" in @request.body.ownr:isset at character 30',
      /Test a column the body may send/,
    ],
    [
      ':isset on an auth field',
      '!@request.auth.role:isset',
      'update',
      'rules.update: :isset applies only to @request.body.<field>, not to "@request.auth.role" at character 20',
      /@request\.body\.<field>:isset/,
    ],
    [
      'contains on a non-text auth field',
      '@request.auth.level ~ "1"',
      'view',
      'rules.view: "~" needs a text column on its left, found @request.auth.level (integer) at character 1',
      /~/,
    ],
  ];
  for (const [name, rule, operation, message, suggestion] of scenarios) {
    it(name, () => {
      assert.throws(
        () => parseRule(rule, operation, columns, authColumns),
        (error: unknown) => {
          assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
          assert.equal(error.code, 'VALIDATION_FAILED');
          assert.equal(error.message, message);
          assert.match(error.suggestion, suggestion);
          return true;
        },
      );
    });
  }
});

describe('ruleToExpr', () => {
  const owner = parseRule('owner = @request.auth.id', 'view', columns, authColumns);
  const signedIn = parseRule('@request.auth.id != ""', 'list', columns, authColumns);
  const create = parseRule('@request.body.owner = @request.auth.id', 'create', columns, authColumns);

  it('locked → "locked"', () =>
    assert.equal(ruleToExpr(parseRule(null, 'view', columns, authColumns), scope(null)), 'locked'));
  it('open → undefined', () =>
    assert.equal(ruleToExpr(parseRule('', 'view', columns, authColumns), scope(null)), undefined));

  const scenarios: [name: string, actual: () => unknown, expected: unknown][] = [
    [
      'owner rule for a user',
      () => ruleToExpr(owner, scope({ id: 'u1' })),
      {
        kind: 'compare',
        op: '=',
        left: { kind: 'column', name: 'owner' },
        right: { kind: 'value', value: 'u1', type: 'text' },
      },
    ],
    [
      'owner rule for an anonymous caller matches id ""',
      () => ruleToExpr(owner, scope(null)),
      {
        kind: 'compare',
        op: '=',
        left: { kind: 'column', name: 'owner' },
        right: { kind: 'value', value: '', type: 'text' },
      },
    ],
    [
      'signed-in rule for an anonymous caller',
      () => ruleToExpr(signedIn, scope(null)),
      {
        kind: 'compare',
        op: '!=',
        left: { kind: 'value', value: '', type: 'text' },
        right: { kind: 'value', value: '', type: 'text' },
      },
    ],
    [
      "create rule with the caller's id in the body",
      () => ruleToExpr(create, scope({ id: 'u1' }, { owner: 'u1' })),
      {
        kind: 'compare',
        op: '=',
        left: { kind: 'value', value: 'u1', type: 'text' },
        right: { kind: 'value', value: 'u1', type: 'text' },
      },
    ],
    [
      'create rule with no owner in the body',
      () => ruleToExpr(create, scope({ id: 'u1' }, {})),
      { kind: 'bool', value: false },
    ],
  ];
  for (const [name, actual, expected] of scenarios) {
    it(name, () => assert.deepEqual(actual(), expected));
  }
});
