/**
 * The filter compiler: a `FilterNode` plus what the caller may see (columns, @now, the
 * request's auth and body values) → a dialect-neutral `Expr`. This is where names are
 * checked against the table and literals are coerced to the type of the column they are
 * compared with; values only ever leave as `value` nodes, so they are bound, never spliced.
 */
import type { CompareOp, Expr, ValueType } from './sql-tree.js';
import type { ComparisonNode, ComparisonOperator, FilterNode, IsSetNode } from './filter-ast.js';
import { describeSide, fail, resolve, type Accepts, type FilterScope, type Side } from './filter-operands.js';
import { quoteSource } from './filter-parser.js';
import { normaliseTimestamp } from '../lib/timestamps.js';
import { describeType, escapeLike, exampleFor, listNames } from './literal-values.js';

export type { FilterScope } from './filter-operands.js';

/**
 * Compiles a parsed filter into a SQL tree expression for `scope`.
 * Throws AppError VALIDATION_FILTER (message naming `scope.parameter` and the 1-based
 * character position) for an unknown column or variable, a literal that does not fit the
 * column's type, `null` with an ordering operator, `~`/`!~` without text on the left and
 * a string on the right, and `@request.body.<name>:isset` where there is no body or with a
 * name that is not a column.
 */
export function compileFilter(ast: FilterNode, scope: FilterScope): Expr {
  const compile = (node: FilterNode): Expr => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return Object.freeze({ kind: node.kind, items: Object.freeze(node.items.map(compile)) });
      case 'not':
        return Object.freeze({ kind: 'not', expr: compile(node.expr) });
      case 'comparison':
        return compileComparison(node, scope);
      case 'isset':
        return compileIsSet(node, scope);
    }
  };
  return compile(ast);
}

/**
 * `@request.body.<name>:isset`: known per request, so it becomes a constant. hasOwn, because a
 * key sent as null is set (that is the point), and a field named like an Object.prototype
 * member must not be found on the prototype.
 */
function compileIsSet(node: IsSetNode, scope: FilterScope): Expr {
  if (scope.body === undefined) {
    throw fail(
      scope,
      `${node.text} is not available here`,
      node.position,
      'Use @request.body, :isset included, only in create and update rules.',
    );
  }
  // A misspelt field is never sent (bodies name columns only), so its negation would always hold
  // and protect nothing: refused when the rule is declared. password is writable, never readable.
  if (!scope.columns.has(node.name) && node.name !== 'password') {
    throw fail(
      scope,
      `unknown column "${node.name}" in ${node.text}`,
      node.position,
      `Test a column the body may send: ${listNames(scope.columns.keys())}.`,
    );
  }
  return Object.freeze({ kind: 'bool', value: Object.hasOwn(scope.body, node.name) });
}

/** A coerced side: an expression, a known null, or a runtime value that cannot match. */
type Coerced = Expr | 'null' | 'misfit';

const CONTAINS_EXAMPLE = 'title ~ "urgent"';
const ORDERING = new Set<ComparisonOperator>(['<', '<=', '>', '>=']);

/** The outcome of a comparison whose runtime value is null or cannot match: SQL-like, `!=` null-safe. */
function constant(op: ComparisonOperator): Expr {
  return Object.freeze({ kind: 'bool', value: op === '!=' || op === '!~' });
}

function compileComparison(node: ComparisonNode, scope: FilterScope): Expr {
  const left = resolve(node.left, scope);
  const right = resolve(node.right, scope);
  if (node.op === '~' || node.op === '!~') return compileContains(node, left, right, scope);
  if (left.kind === 'null' || right.kind === 'null') return compileNullComparison(node, left, right, scope);
  const op = node.op as CompareOp;
  if (left.kind === 'column' && right.kind === 'column') {
    if (!compatible(left.type, right.type) || left.type === 'json') {
      throw fail(
        scope,
        `cannot compare ${describeSide(left)} with ${describeSide(right)}`,
        node.operatorPosition,
        'Compare columns of the same type (integer and number mix); json columns can only be compared with null.',
      );
    }
    return Object.freeze({ kind: 'compare', op, left: sideExpr(left), right: sideExpr(right) });
  }
  const target = targetType(left, right, node, scope);
  if (target === 'misfit') return constant(node.op);
  const coercedLeft = coerce(left, target, right, node.op, scope);
  const coercedRight = coerce(right, target, left, node.op, scope);
  if (coercedLeft === 'misfit' || coercedRight === 'misfit') return constant(node.op);
  if (coercedLeft === 'null' || coercedRight === 'null') {
    const other = coercedLeft === 'null' ? coercedRight : coercedLeft;
    if (other === 'null') return Object.freeze({ kind: 'bool', value: node.op === '=' });
    if (other.kind === 'column' && (node.op === '=' || node.op === '!=')) {
      return Object.freeze({ kind: 'is-null', expr: other, negated: node.op === '!=' });
    }
    return constant(node.op);
  }
  return Object.freeze({ kind: 'compare', op, left: coercedLeft, right: coercedRight });
}

/** The expression of a column side: the column, or a relation path's subquery. */
function sideExpr(side: Extract<Side, { kind: 'column' }>): Expr {
  return side.expr ?? column(side.name);
}

function column(name: string): Expr {
  return Object.freeze({ kind: 'column', name });
}

function compatible(a: ValueType, b: ValueType): boolean {
  return a === b || ((a === 'integer' || a === 'number') && (b === 'integer' || b === 'number'));
}

/** `x = null` / `x != null`: IS [NOT] NULL on a column, a constant on a value. */
function compileNullComparison(node: ComparisonNode, left: Side, right: Side, scope: FilterScope): Expr {
  const nullSide = left.kind === 'null' ? left : right;
  if (node.op !== '=' && node.op !== '!=') {
    throw fail(
      scope,
      `null can only be compared with = or !=, not "${node.op}"`,
      nullSide.node.position,
      'Write x = null or x != null.',
    );
  }
  const other = left.kind === 'null' ? right : left;
  if (other.kind === 'column')
    return Object.freeze({ kind: 'is-null', expr: sideExpr(other), negated: node.op === '!=' });
  const isNull = other.kind === 'null' || other.value === null;
  return Object.freeze({ kind: 'bool', value: isNull === (node.op === '=') });
}

/** The type both sides are coerced to; 'misfit' when two runtime values have unrelated types. */
function targetType(left: Side, right: Side, node: ComparisonNode, scope: FilterScope): ValueType | 'misfit' {
  const sides = [left, right] as const;
  const columnSide = sides.find((side) => side.kind === 'column');
  if (columnSide?.kind === 'column') return checkAccepted(sides, columnSide.type, columnSide, scope);
  const accepts = sides.map((side) => (side.kind === 'value' ? side.accepts : 'any'));
  const concrete = accepts.filter((a): a is ValueType => a !== 'string' && a !== 'number-literal' && a !== 'any');
  if (concrete.length === 2 && !compatible(concrete[0]!, concrete[1]!)) {
    throw fail(
      scope,
      `cannot compare ${describeSide(left)} with ${describeSide(right)}`,
      node.operatorPosition,
      'Compare values of the same type.',
    );
  }
  const base = concrete.length === 2 && concrete[0] !== concrete[1] ? 'number' : concrete[0];
  if (base === 'json') {
    throw fail(
      scope,
      `cannot compare ${describeSide(left)} with ${describeSide(right)}`,
      node.operatorPosition,
      'Compare json values only with null, for example: @request.auth.prefs != null.',
    );
  }
  if (base !== undefined) return checkAccepted(sides, base, undefined, scope);
  if (accepts.includes('string')) return checkAccepted(sides, 'text', undefined, scope);
  if (accepts.includes('number-literal')) return checkAccepted(sides, 'number', undefined, scope);
  // Two @request.body values: their JSON types decide, and unrelated types simply cannot match.
  const types = sides.map((side) => (side.kind === 'value' ? jsType(side.value) : undefined));
  const [a, b] = types;
  if (a === undefined || b === undefined) return a ?? b ?? 'text';
  return compatible(a, b) && a !== 'json' ? a : 'misfit';
}

function jsType(value: unknown): ValueType | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

/** Throws unless every value side may be coerced to `target` (checked statically, before values). */
function checkAccepted(
  sides: readonly [Side, Side],
  target: ValueType,
  against: Side | undefined,
  scope: FilterScope,
): ValueType {
  for (const side of sides) {
    if (side.kind !== 'value' || accepts(side.accepts, target)) continue;
    const other = side === sides[0] ? sides[1] : sides[0];
    const subject = against ?? other;
    const name = subject.kind === 'column' ? subject.name : 'value';
    throw fail(
      scope,
      `expected ${describeType(target)} to compare with ${describeSide(subject)}, found ${describeSide(side)}`,
      side.node.position,
      subject.kind === 'column'
        ? `Compare "${name}" with ${describeType(target)}, for example: ${exampleFor(name, target)}.`
        : 'Compare values of the same type.',
    );
  }
  return target;
}

function accepts(accepted: Accepts, target: ValueType): boolean {
  if (target === 'json') return false;
  if (accepted === 'any') return true;
  if (accepted === 'string') return target === 'text' || target === 'timestamp';
  if (accepted === 'number-literal') return target === 'integer' || target === 'number';
  return compatible(accepted, target);
}

/** Turns one side into an expression of type `target`; literals that cannot fit throw. */
function coerce(side: Side, target: ValueType, other: Side, op: ComparisonOperator, scope: FilterScope): Coerced {
  if (side.kind === 'column') return sideExpr(side);
  if (side.kind === 'null') return 'null';
  if (side.value === null) return 'null';
  if (!side.runtime) return coerceLiteral(side, target, other, op, scope);
  return coerceRuntime(side.value, target, op);
}

function coerceLiteral(
  side: Extract<Side, { kind: 'value' }>,
  target: ValueType,
  other: Side,
  op: ComparisonOperator,
  scope: FilterScope,
): Expr {
  const value = side.value;
  if (target === 'timestamp' && typeof value === 'string' && side.node.kind === 'string') {
    const iso = normaliseTimestamp(value);
    if (iso === undefined) {
      throw fail(
        scope,
        `expected ${describeType('timestamp')} to compare with ${describeSide(other)}, ` +
          `found the invalid date ${quoteSource(side.node.text)}`,
        side.node.position,
        'Write dates in ISO 8601, for example "2024-01-31" or "2024-01-31T12:00:00Z".',
      );
    }
    return literal(iso, 'timestamp');
  }
  if (target === 'integer' && typeof value === 'number' && !Number.isSafeInteger(value)) {
    // An ordering (<, >) may compare an integer column with a fraction; equality may not.
    if (!ORDERING.has(op)) {
      throw fail(
        scope,
        `expected ${describeType('integer')} to compare with ${describeSide(other)}, found ${describeSide(side)}`,
        side.node.position,
        'Compare integer columns with whole numbers, or use < and > for ranges, ' +
          `for example: ${other.kind === 'column' ? other.name : 'n'} >= 1.5.`,
      );
    }
    return literal(value, 'number');
  }
  return literal(value, target);
}

function coerceRuntime(value: unknown, target: ValueType, op: ComparisonOperator): Coerced {
  switch (target) {
    case 'text':
      return typeof value === 'string' ? literal(value, 'text') : 'misfit';
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'misfit';
      if (Number.isSafeInteger(value)) return literal(value, 'integer');
      return ORDERING.has(op) ? literal(value, 'number') : 'misfit';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? literal(value, 'number') : 'misfit';
    case 'boolean':
      return typeof value === 'boolean' ? literal(value, 'boolean') : 'misfit';
    case 'timestamp': {
      const iso =
        value instanceof Date
          ? Number.isNaN(value.getTime())
            ? undefined
            : value.toISOString()
          : typeof value === 'string'
            ? normaliseTimestamp(value)
            : undefined;
      return iso === undefined ? 'misfit' : literal(iso, 'timestamp');
    }
    case 'json':
      return 'misfit';
  }
}

function literal(value: unknown, type: ValueType): Expr {
  return Object.freeze({ kind: 'value', value, type });
}

/** `a ~ "x"` / `a !~ "x"`: a case-insensitive LIKE '%x%' with the wildcards in x escaped. */
function compileContains(node: ComparisonNode, left: Side, right: Side, scope: FilterScope): Expr {
  const suggestion = `Write a text column, then ~ or !~, then a quoted string, for example: ${CONTAINS_EXAMPLE}.`;
  const leftIsText =
    (left.kind === 'column' && left.type === 'text') ||
    (left.kind === 'value' && (left.accepts === 'string' || left.accepts === 'text' || left.accepts === 'any'));
  if (!leftIsText) {
    throw fail(
      scope,
      `"${node.op}" needs a text column on its left, found ${describeSide(left)}`,
      left.node.position,
      suggestion,
    );
  }
  const rightIsString =
    right.kind === 'value' && (right.accepts === 'string' || right.accepts === 'text' || right.accepts === 'any');
  if (!rightIsString) {
    throw fail(
      scope,
      `"${node.op}" needs a quoted string on its right, found ${describeSide(right)}`,
      right.node.position,
      suggestion,
    );
  }
  if (typeof right.value !== 'string') return constant(node.op);
  let expr: Expr;
  if (left.kind === 'column') expr = sideExpr(left);
  else if (left.kind === 'value' && typeof left.value === 'string') expr = literal(left.value, 'text');
  else return constant(node.op);
  return Object.freeze({
    kind: 'like',
    expr,
    pattern: `%${escapeLike(right.value)}%`,
    caseInsensitive: true,
    negated: node.op === '!~',
  });
}
