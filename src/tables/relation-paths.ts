/**
 * Relation paths (contract §13): `owner.team.name` follows `references` columns from a row,
 * `@request.auth.team.plan` from the signed-in user's row, up to 3 hops. This module knows the
 * project's table definitions and turns a path into a `path` expression (nested scalar
 * subqueries in the SQL compilers). A caller's filter, shorthand and sort get a `guard` per hop
 * (the hop table's view rule for that caller: a row the caller may not view reads as null);
 * rules, written by the admin, read related rows freely.
 */
import type { PathResolver } from '../query/filter-operands.js';
import type { Expr, PathHop, ValueType } from '../query/sql-tree.js';
import { publicColumns, type TableDefinition } from '../schema/definition.js';

/** Most hops of a path. */
export const MAX_PATH_HOPS = 3;

/** The hop table's condition for the caller, undefined for none, 'hidden' when the caller may view none of its rows. */
export type HopGuard = (table: string) => Expr | undefined | 'hidden';

const columnTypes = new WeakMap<TableDefinition, ReadonlyMap<string, { type: ValueType; references?: string }>>();

function columnsOf(definition: TableDefinition): ReadonlyMap<string, { type: ValueType; references?: string }> {
  let map = columnTypes.get(definition);
  if (!map) {
    const references = new Map(
      definition.columns.filter((c) => c.references).map((c) => [c.name, c.references!.table] as const),
    );
    map = new Map(
      publicColumns(definition).map(
        (c) =>
          [c.name, { type: c.type, ...(references.has(c.name) && { references: references.get(c.name)! }) }] as const,
      ),
    );
    columnTypes.set(definition, map);
  }
  return map;
}

/**
 * A resolver of relation paths starting at rows of `table` (or at the auth table's row for
 * `@request.auth.*`). `guard`, when given, filters every hop (a caller's own filter and sort).
 */
export function pathResolver(
  definitions: ReadonlyMap<string, TableDefinition>,
  table: string,
  guard?: HopGuard,
): PathResolver {
  return (origin, segments, authValue) => {
    let current: string | undefined = table;
    if (origin === 'auth') current = [...definitions.values()].find((d) => d.auth_table)?.name;
    if (current === undefined)
      return {
        detail: 'this project has no auth table',
        suggestion: 'Use @request.auth.id, or create an auth table first.',
      };
    const hops = segments.length - 1;
    if (hops > MAX_PATH_HOPS)
      return {
        detail: `a path follows at most ${MAX_PATH_HOPS} references`,
        suggestion: 'Shorten the path, or put the condition into a rule of a table closer to the data.',
      };
    let from: Expr | undefined;
    const steps: PathHop[] = [];
    for (const [index, name] of segments.entries()) {
      const definition = definitions.get(current);
      if (!definition)
        return { detail: `table "${current}" does not exist`, suggestion: 'Declare the referenced table first.' };
      const columns = columnsOf(definition);
      const column = columns.get(name);
      const last = index === segments.length - 1;
      if (!column || (!last && column.references === undefined)) {
        const references = [...columns].filter(([, c]) => c.references !== undefined).map(([n]) => n);
        return last
          ? {
              detail: `"${current}" has no column "${name}"`,
              suggestion: `Read one of the columns of "${current}": ${[...columns.keys()].sort().join(', ')}.`,
            }
          : {
              detail: `"${name}" is not a reference column of "${current}"`,
              suggestion:
                references.length > 0
                  ? `Follow one of the references of "${current}": ` +
                    `${references.sort().join(', ')}, for example: ${references[0]}.id.`
                  : `"${current}" has no references column to follow; only columns with "references" start a path.`,
            };
      }
      if (index === 0) {
        from =
          origin === 'row'
            ? { kind: 'column', name }
            : authValue === null || authValue === undefined
              ? { kind: 'null' }
              : { kind: 'value', value: authValue, type: 'text' };
      } else {
        const condition = guard?.(current);
        steps.push({
          table: current,
          column: name,
          type: column.type,
          ...(condition === 'hidden'
            ? { guard: { kind: 'bool', value: false } }
            : condition !== undefined && { guard: condition }),
        });
      }
      if (!last) current = column.references!;
    }
    return { expr: { kind: 'path', from: from!, hops: steps }, type: steps.at(-1)!.type };
  };
}
