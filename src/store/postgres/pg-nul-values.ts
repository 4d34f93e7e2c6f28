/**
 * PostgreSQL text cannot hold U+0000 (NUL). Rowbase refuses NUL in stored text on every engine
 * (the row validators), so a stored value never contains one; but a filter or a path id may
 * still compare with such a string, and binding it would fail. This rewrite replaces every
 * comparison with a NUL-holding text value by one with the same outcome on NUL-free values,
 * so PostgreSQL answers exactly as SQLite does (no match, or the right range) instead of erring.
 */
import type { CompareOp, Expr, Statement } from '../../query/sql-tree.js';

const NUL = '\u0000';

function hasNul(node: Expr): node is Extract<Expr, { kind: 'value' }> & { value: string } {
  return node.kind === 'value' && typeof node.value === 'string' && node.value.includes(NUL);
}

/** `x` compared with `x` by `<`: false for a value, null for null (what `x = 'impossible'` gives). */
function never(expr: Expr): Expr {
  return { kind: 'compare', op: '<', left: expr, right: expr };
}

const MIRROR: Readonly<Record<CompareOp, CompareOp>> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

function compareJs(op: CompareOp, a: string, b: string): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** `expr op value` where `value` holds a NUL and `expr` cannot. */
function rewriteCompare(op: CompareOp, expr: Expr, value: string): Expr {
  const prefix = value.slice(0, value.indexOf(NUL));
  const bound: Expr = { kind: 'value', value: prefix, type: 'text' };
  switch (op) {
    case '=':
      return never(expr);
    case '!=':
      return { kind: 'bool', value: true }; // null-safe: a null or any stored value differs
    // A NUL-free string sorts below prefix+NUL+... exactly when it is at most prefix.
    case '<':
    case '<=':
      return { kind: 'compare', op: '<=', left: expr, right: bound };
    case '>':
    case '>=':
      return { kind: 'compare', op: '>', left: expr, right: bound };
  }
}

function rewrite(node: Expr): Expr {
  switch (node.kind) {
    case 'compare': {
      const left = rewrite(node.left);
      const right = rewrite(node.right);
      if (hasNul(left) && hasNul(right)) return { kind: 'bool', value: compareJs(node.op, left.value, right.value) };
      if (hasNul(right)) return rewriteCompare(node.op, left, right.value);
      if (hasNul(left)) return rewriteCompare(MIRROR[node.op], right, left.value);
      return left === node.left && right === node.right ? node : { ...node, left, right };
    }
    case 'like':
      // A NUL in the pattern must match a NUL in the value, which no stored text has.
      if (node.pattern.includes(NUL)) return node.negated ? { kind: 'bool', value: true } : never(rewrite(node.expr));
      return { ...node, expr: rewrite(node.expr) };
    case 'in': {
      const values = node.values.filter((value) => !hasNul(value));
      if (values.length === node.values.length) return node;
      return values.length === 0 ? never(rewrite(node.expr)) : { ...node, values };
    }
    case 'and':
    case 'or':
      return { ...node, items: node.items.map(rewrite) };
    case 'not':
      return { ...node, expr: rewrite(node.expr) };
    case 'is-null':
      return { ...node, expr: rewrite(node.expr) };
    case 'add':
      return { ...node, left: rewrite(node.left), right: rewrite(node.right) };
    default:
      return node;
  }
}

/** The statement with NUL-holding text values in its conditions rewritten (writes are left to fail). */
export function withoutNulComparisons(statement: Statement): Statement {
  if (statement.kind === 'insert') {
    const upsert = statement.onConflictUpdate;
    return upsert?.where ? { ...statement, onConflictUpdate: { ...upsert, where: rewrite(upsert.where) } } : statement;
  }
  if (!statement.where) return statement;
  return { ...statement, where: rewrite(statement.where) };
}
