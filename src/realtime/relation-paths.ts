/**
 * Rules and filters that follow relation paths (`owner.team = @request.auth.team`, contract
 * §13) read other rows, so memory alone cannot judge them. For one event, every distinct path
 * of every subscriber's condition is anchored on the event's row (its start column replaced by
 * the row's value, so a deleted row works too) and resolved with one lookup per hop, shared by
 * all subscribers: the database work grows with the distinct paths, never with subscribers.
 * The resolved values then replace the paths and the condition is judged in memory.
 */
import { visitExpr } from '../query/expr-walk.js';
import { sql, type Expr } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';

type PathExpr = Extract<Expr, { kind: 'path' }>;

/** Resolved path values of one event, by anchored path. */
export type ResolvedPaths = Map<string, unknown>;

/** Resolves, into `resolved`, every path of `condition` anchored on `record` not resolved yet. */
export async function resolvePaths(db: Executor, condition: Expr, record: Row, resolved: ResolvedPaths): Promise<void> {
  const paths: PathExpr[] = [];
  visitExpr(condition, (node) => {
    if (node.kind === 'path') paths.push(node);
  });
  for (const path of paths) {
    const key = keyOf(path, record);
    if (resolved.has(key)) continue;
    resolved.set(key, await follow(db, path, startValue(path, record)));
  }
}

/** `condition` with each path replaced by its resolved value (unknown paths become null: fail closed). */
export function substitutePaths(condition: Expr, record: Row, resolved: ResolvedPaths): Expr {
  const replace = (node: Expr): Expr => {
    switch (node.kind) {
      case 'path': {
        const value = resolved.get(keyOf(node, record));
        return value === null || value === undefined
          ? { kind: 'null' }
          : { kind: 'value', value, type: node.hops[node.hops.length - 1]!.type };
      }
      case 'compare':
      case 'add':
        return { ...node, left: replace(node.left), right: replace(node.right) };
      case 'is-null':
      case 'like':
      case 'not':
        return { ...node, expr: replace(node.expr) } as Expr;
      case 'in':
        return { ...node, expr: replace(node.expr), values: node.values.map(replace) };
      case 'and':
      case 'or':
        return { ...node, items: node.items.map(replace) };
      default:
        return node;
    }
  };
  return replace(condition);
}

function startValue(path: PathExpr, record: Row): unknown {
  if (path.from.kind === 'column') return record[path.from.name] ?? null;
  if (path.from.kind === 'value') return path.from.value;
  return null;
}

function keyOf(path: PathExpr, record: Row): string {
  return JSON.stringify([startValue(path, record), path.hops]);
}

/**
 * Follows the hops from `start`: each reads `column` of the row whose id is the previous value, if its guard admits it.
 */
async function follow(db: Executor, path: PathExpr, start: unknown): Promise<unknown> {
  let value = start;
  for (const hop of path.hops) {
    if (value === null || value === undefined || typeof value !== 'string') return null;
    const row = await db.first({
      kind: 'select',
      table: hop.table,
      columns: [{ name: hop.column, type: hop.type }],
      where: sql.and(sql.eq('id', value), hop.guard),
    });
    value = row?.[hop.column] ?? null;
  }
  return value;
}
