/**
 * The operands of a filter comparison, resolved against what the caller may see: a column
 * (checked against the table), null, a literal, @now, or a @request value (known only per
 * request). The compiler (filter-compiler.ts) coerces the resolved sides to one type.
 */
import { AppError } from '../errors/app-error.js';
import type { Expr, ValueType } from './sql-tree.js';
import type { OperandNode } from './filter-ast.js';
import { quoteSource, shortenSource } from './filter-parser.js';
import { listNames } from './literal-values.js';

/** What a filter may refer to, and the values of its variables for this request. */
export interface FilterScope {
  /** Names the source in messages: 'filter', or e.g. 'rules.view'. */
  readonly parameter: string;
  /** The columns that may be named (password is never in it). */
  readonly columns: ReadonlyMap<string, ValueType>;
  /** ISO timestamp with Z: the value of @now. */
  readonly now: string;
  /** @request.auth.<name> values; a missing name is null; with no auth, `id` is "" (anonymous). */
  readonly auth?: Readonly<Record<string, unknown>> | null;
  /** Types of the @request.auth fields; when absent, @request.auth is not allowed. */
  readonly authColumns?: ReadonlyMap<string, ValueType>;
  /** @request.body.<name> values (missing → null); when absent, @request.body is not allowed. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Resolves relation paths (`owner.team`, `@request.auth.team.plan`); when absent, paths are not allowed. */
  readonly paths?: PathResolver;
}

/**
 * Resolves a relation path of names: from the current row (`owner.team.name`) or from the
 * signed-in user's row (`@request.auth.team.plan`, `authValue` being the value of its first
 * field). Returns the path's expression and type, or why it is not valid (detail, suggestion).
 */
export type PathResolver = (
  origin: 'row' | 'auth',
  segments: readonly string[],
  authValue: unknown,
) => { readonly expr: Expr; readonly type: ValueType } | { readonly detail: string; readonly suggestion: string };

/** What a side may be coerced to: a column's type, a literal's family, or anything (body). */
export type Accepts = ValueType | 'string' | 'number-literal' | 'any';

export type Side =
  /** A column, or a relation path (`expr` then holds its subquery). */
  | {
      readonly kind: 'column';
      readonly node: OperandNode;
      readonly name: string;
      readonly type: ValueType;
      readonly expr?: Expr;
    }
  | { readonly kind: 'null'; readonly node: OperandNode }
  | {
      readonly kind: 'value';
      readonly node: OperandNode;
      readonly accepts: Accepts;
      readonly value: unknown;
      /** True for @request values: known only per request, so misfits become constants, not errors. */
      readonly runtime: boolean;
    };

/** A VALIDATION_FILTER error naming the parameter and the 1-based character position. */
export function fail(scope: FilterScope, detail: string, position: number, suggestion: string): AppError {
  return new AppError('VALIDATION_FILTER', {
    message: `${scope.parameter}: ${detail} at character ${position + 1}`,
    suggestion,
  });
}

/** How a side reads in messages. */
export function describeSide(side: Side): string {
  if (side.kind === 'column') return `column "${side.name}" (${side.type})`;
  if (side.kind === 'value' && side.node.kind === 'request' && side.accepts !== 'any') {
    return `${side.node.text} (${side.accepts})`;
  }
  // Strings keep their own quotes; numbers, true, false and @now read best bare.
  return side.node.kind === 'string' ? quoteSource(side.node.text) : shortenSource(side.node.text);
}

/** Resolves an operand; throws VALIDATION_FILTER for an unknown column or variable, or one not available here. */
export function resolve(node: OperandNode, scope: FilterScope): Side {
  switch (node.kind) {
    case 'column': {
      if (node.name.includes('.')) return resolvePath(node, 'row', node.name.split('.'), null, scope);
      const type = scope.columns.get(node.name);
      if (type === undefined) {
        throw fail(
          scope,
          `unknown column "${node.name}"`,
          node.position,
          `Use one of the columns: ${listNames(scope.columns.keys())}.`,
        );
      }
      return { kind: 'column', node, name: node.name, type };
    }
    case 'null':
      return { kind: 'null', node };
    case 'string':
      return { kind: 'value', node, accepts: 'string', value: node.value, runtime: false };
    case 'number':
      return { kind: 'value', node, accepts: 'number-literal', value: node.value, runtime: false };
    case 'boolean':
      return { kind: 'value', node, accepts: 'boolean', value: node.value, runtime: false };
    case 'now':
      return { kind: 'value', node, accepts: 'timestamp', value: scope.now, runtime: false };
    case 'request':
      return node.source === 'auth' ? resolveAuth(node, scope) : resolveBody(node, scope);
  }
}

function resolveAuth(node: Extract<OperandNode, { kind: 'request' }>, scope: FilterScope): Side {
  if (scope.authColumns === undefined) {
    throw fail(
      scope,
      `${node.text} is not available here`,
      node.position,
      'Use @request.auth only in table rules; a filter can name columns, literals and @now.',
    );
  }
  if (node.name.includes('.')) {
    const segments = node.name.split('.');
    const auth = scope.auth ?? null;
    const first = auth !== null && Object.hasOwn(auth, segments[0]!) ? auth[segments[0]!] : null;
    return resolvePath(node, 'auth', segments, first ?? null, scope);
  }
  const type = node.name === 'id' ? 'text' : scope.authColumns.get(node.name);
  if (type === undefined) {
    const names = new Set(['id', ...scope.authColumns.keys()]);
    throw fail(
      scope,
      `unknown auth field "${node.name}" in ${node.text}`,
      node.position,
      `Use one of the auth fields: ${listNames(names)}.`,
    );
  }
  const auth = scope.auth ?? null;
  // Anonymous callers have id "" so that `owner = @request.auth.id` simply matches nothing.
  const value =
    auth === null ? (node.name === 'id' ? '' : null) : Object.hasOwn(auth, node.name) ? auth[node.name] : null;
  return { kind: 'value', node, accepts: type, value: value ?? null, runtime: true };
}

function resolvePath(
  node: OperandNode,
  origin: 'row' | 'auth',
  segments: readonly string[],
  authValue: unknown,
  scope: FilterScope,
): Side {
  if (!scope.paths) {
    throw fail(
      scope,
      `the relation path ${node.text} is not available here`,
      node.position,
      'Relation paths work in filter, shorthand filters, sort and table rules of the data API.',
    );
  }
  const resolved = scope.paths(origin, segments, authValue);
  if ('detail' in resolved) throw fail(scope, `${node.text}: ${resolved.detail}`, node.position, resolved.suggestion);
  return { kind: 'column', node, name: node.text, type: resolved.type, expr: resolved.expr };
}

function resolveBody(node: Extract<OperandNode, { kind: 'request' }>, scope: FilterScope): Side {
  if (scope.body === undefined) {
    throw fail(
      scope,
      `${node.text} is not available here`,
      node.position,
      'Use @request.body only in create and update rules.',
    );
  }
  // hasOwn: a body field named like an Object.prototype member must not reach the prototype.
  const value = Object.hasOwn(scope.body, node.name) ? scope.body[node.name] : null;
  return { kind: 'value', node, accepts: 'any', value: value ?? null, runtime: true };
}
