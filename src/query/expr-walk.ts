/**
 * Walking an expression tree (sql-tree.ts): every node, parents before their children. Pure.
 */
import type { Expr } from './sql-tree.js';

/** Calls `see` with `expr` and each node below it. */
export function visitExpr(expr: Expr | undefined, see: (node: Expr) => void): void {
  if (!expr) return;
  see(expr);
  switch (expr.kind) {
    case 'compare':
    case 'add':
      visitExpr(expr.left, see);
      visitExpr(expr.right, see);
      return;
    case 'is-null':
    case 'like':
    case 'not':
      visitExpr(expr.expr, see);
      return;
    case 'in':
      visitExpr(expr.expr, see);
      for (const value of expr.values) visitExpr(value, see);
      return;
    case 'and':
    case 'or':
    case 'row':
      for (const item of expr.items) visitExpr(item, see);
      return;
    case 'path':
      visitExpr(expr.from, see);
      return;
    default:
      return;
  }
}

/** True when `expr` holds a relation path (contract §13): it reads other rows. */
export function hasPaths(expr: Expr | undefined): boolean {
  let found = false;
  visitExpr(expr, (node) => {
    if (node.kind === 'path') found = true;
  });
  return found;
}
