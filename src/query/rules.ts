/**
 * Table rules (contract §4): `null` locks an operation to the admin key, `""` opens it, and
 * any other text is a filter expression that may also name `@request.auth.<field>` and, for
 * create and update, `@request.body.<field>`. A rule is parsed and checked once, when the
 * table is defined, and compiled per request with the caller's values.
 */
import { AppError, isAppError } from '../errors/app-error.js';
import type { FilterNode } from './filter-ast.js';
import { compileFilter, type FilterScope } from './filter-compiler.js';
import type { PathResolver } from './filter-operands.js';
import { parseFilter } from './filter-parser.js';
import type { Expr, ValueType } from './sql-tree.js';

/** The operations a table has a rule for. */
export type RuleOperation = 'list' | 'view' | 'create' | 'update' | 'delete';

/** A rule checked at definition time. */
export type ParsedRule =
  | { readonly kind: 'locked' }
  | { readonly kind: 'open' }
  | {
      readonly kind: 'expression';
      readonly operation: RuleOperation;
      readonly source: string;
      readonly ast: FilterNode;
    };

const LOCKED: ParsedRule = Object.freeze({ kind: 'locked' });
const OPEN: ParsedRule = Object.freeze({ kind: 'open' });

/** Any valid instant works: checking a rule looks at names and types, not at the time. */
const CHECK_NOW = '2000-01-01T00:00:00.000Z';

/**
 * Parses the rule of `operation` and checks it against the table's `columns` and the auth
 * table's `authColumns` (null or absent: only `@request.auth.id` exists), so that mistakes
 * are reported when the table is defined rather than on the first request.
 * Throws AppError VALIDATION_FAILED, with a message such as
 * `rules.view: unknown column "ownr" at character 1`, for a syntax error, an unknown column
 * or auth field, a type mismatch, and `@request.body` in a list, view or delete rule.
 * With `paths`, relation paths (`owner.team = @request.auth.team`) are checked too; rules read
 * related rows without the caller's view rules (contract §13: rules are the admin's).
 */
export function parseRule(
  rule: string | null,
  operation: RuleOperation,
  columns: ReadonlyMap<string, ValueType>,
  authColumns?: ReadonlyMap<string, ValueType> | null,
  paths?: PathResolver,
): ParsedRule {
  if (rule === null) return LOCKED;
  if (rule === '') return OPEN;
  const parameter = `rules.${operation}`;
  const fields = authColumns ?? new Map<string, ValueType>([['id', 'text']]);
  try {
    const ast = parseFilter(rule, parameter);
    const scope: FilterScope = {
      parameter,
      columns,
      now: CHECK_NOW,
      authColumns: fields,
      ...(paths && { paths }),
      // An empty body makes every @request.body field null: allowed, and its names already checked.
      ...(operation === 'create' || operation === 'update' ? { body: {} } : {}),
    };
    // Once anonymous and once signed in: the checks are static, but both paths must compile.
    compileFilter(ast, { ...scope, auth: null });
    compileFilter(ast, { ...scope, auth: sampleAuth(fields) });
    return Object.freeze({ kind: 'expression', operation, source: rule, ast });
  } catch (error) {
    if (!isAppError(error) || error.code !== 'VALIDATION_FILTER') throw error;
    throw new AppError('VALIDATION_FAILED', { message: error.message, suggestion: error.suggestion });
  }
}

/**
 * The WHERE condition of a parsed rule for one request: 'locked' for a locked rule,
 * undefined for an open one, else the compiled expression.
 * Throws AppError VALIDATION_FILTER only if the table changed under the rule since it was
 * parsed (for example an auth field it names was dropped).
 */
export function ruleToExpr(rule: ParsedRule, scope: FilterScope): Expr | 'locked' | undefined {
  switch (rule.kind) {
    case 'locked':
      return 'locked';
    case 'open':
      return undefined;
    case 'expression':
      return compileFilter(rule.ast, scope);
  }
}

/** A signed-in user with a non-null value of the right type in every auth field. */
function sampleAuth(fields: ReadonlyMap<string, ValueType>): Record<string, unknown> {
  const samples: Record<ValueType, unknown> = {
    text: 'x',
    integer: 1,
    number: 1,
    boolean: true,
    timestamp: CHECK_NOW,
    json: { sample: true },
  };
  return Object.fromEntries([
    ['id', 'x'],
    ...[...fields].filter(([name]) => name !== 'id').map(([name, type]) => [name, samples[type]]),
  ]);
}
