/**
 * The dialect-neutral SQL tree. Domain code builds these plain, immutable objects; only the
 * per-engine compilers in `store/` turn them into SQL text. Values always travel as bound
 * parameters (`value` nodes); identifiers are names that the compilers quote.
 */
import type { SearchQuery } from './search-parser.js';

/** The value types a column can have; the engines map them to native types. */
export type ValueType = 'text' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'json';

/** A column in a result or an insert, with the type that drives encoding and decoding. */
export interface ColumnRef {
  readonly name: string;
  readonly type: ValueType;
}

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A boolean or scalar expression. `!=` is null-safe: `a != 'x'` holds where `a` is null. */
export type Expr =
  | { readonly kind: 'column'; readonly name: string }
  | { readonly kind: 'value'; readonly value: unknown; readonly type: ValueType }
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'is-null'; readonly expr: Expr; readonly negated: boolean }
  | {
      readonly kind: 'like';
      readonly expr: Expr;
      /** A LIKE pattern: `%` and `_` are wildcards, `\` escapes them. */
      readonly pattern: string;
      readonly caseInsensitive: boolean;
      readonly negated: boolean;
    }
  | { readonly kind: 'in'; readonly expr: Expr; readonly values: readonly Expr[] }
  | { readonly kind: 'and' | 'or'; readonly items: readonly Expr[] }
  | { readonly kind: 'not'; readonly expr: Expr }
  | { readonly kind: 'add'; readonly left: Expr; readonly right: Expr }
  /**
   * A row value `(a, b, ...)`, only as both operands of `<` or `>`: lexicographic order, which
   * both engines answer with one index seek (keyset cursors over several sort keys).
   */
  | { readonly kind: 'row'; readonly items: readonly Expr[] }
  /**
   * A relation path (contract §13): starting from `from` (a column of the current row, or a
   * value), each hop reads `column` of the row of `table` whose id is the previous value, and
   * only if that row meets `guard` (else the path is null). Compiled to nested scalar subqueries.
   */
  | { readonly kind: 'path'; readonly from: Expr; readonly hops: readonly PathHop[] }
  /**
   * The relevance of the current row to the statement's `search` (a number, higher is more
   * relevant); only in a select that has `search`. Each engine ranks in its own way.
   */
  | { readonly kind: 'search-rank' };

/**
 * A full-text search restricting a statement to the matching rows of a table with `search`
 * columns (contract §18). The query holds tokens only (query/search-parser.ts); the engines
 * match them against their index of the table's search columns.
 */
export interface SearchClause {
  readonly query: SearchQuery;
}

/** One hop of a relation path. `guard` is evaluated on the hop's row (its columns unqualified). */
export interface PathHop {
  readonly table: string;
  readonly column: string;
  readonly type: ValueType;
  readonly guard?: Expr;
}

export interface OrderTerm {
  readonly column: string;
  readonly descending: boolean;
  /**
   * A relation path to order by (`sort=owner.name`); `column` is then its
   * name as written, and the statement's `computed` output of that name.
   */
  readonly expr?: Expr;
  /** The type of `expr`. */
  readonly type?: ValueType;
  /**
   * The column never holds null (system or required column): engines may then
   * order it without a NULLS clause, which lets PostgreSQL walk a plain index.
   */
  readonly notNull?: boolean;
}

/** An aggregate function of `select` (contract §13). */
export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';

/** One aggregate output column: `fn(column) AS key`; `type` decodes the result. */
export interface AggregateOutput {
  readonly key: string;
  readonly fn: AggregateFunction;
  /** The aggregated column; absent for count(). */
  readonly column?: string;
  readonly type: ValueType;
}

export interface SelectStatement {
  readonly kind: 'select';
  readonly table: string;
  /** With `aggregates`: the grouping columns (also grouped by). */
  readonly columns: readonly ColumnRef[];
  /**
   * Aggregate outputs after `columns`; the statement then groups by `columns`
   * (one row when there are none). Order terms may name output keys.
   */
  readonly aggregates?: readonly AggregateOutput[];
  /**
   * Expressions returned as extra output columns (`expr AS key`): the values of relation-path sort keys, for cursors.
   */
  readonly computed?: readonly { readonly key: string; readonly expr: Expr; readonly type: ValueType }[];
  /** At most `limit` rows per value of `column`, the first ones in `orderBy` (reverse expand: 100 per parent row). */
  readonly perValueLimit?: { readonly column: string; readonly limit: number };
  readonly where?: Expr;
  /** Only rows matching this search; `search-rank` expressions then rank them. */
  readonly search?: SearchClause;
  readonly orderBy?: readonly OrderTerm[];
  readonly limit?: number;
  readonly offset?: number;
  /** Lock the selected rows until the transaction ends (ignored where the engine locks whole files). */
  readonly forUpdate?: boolean;
  /** With `forUpdate`: skip rows another transaction has locked instead of waiting for them (work queues). */
  readonly skipLocked?: boolean;
  /**
   * Also return, under this key in every row (an integer), how many rows the statement matches
   * before `limit` and `offset`: a page and its total in one statement, where both would read
   * every match (a search). Rows past the end carry nothing, so an empty page tells no total.
   */
  readonly totalAs?: string;
}

export interface CountStatement {
  readonly kind: 'count';
  readonly table: string;
  readonly where?: Expr;
  /** Only rows matching this search. */
  readonly search?: SearchClause;
  /** Counts the groups of these columns instead of rows. */
  readonly groupBy?: readonly string[];
}

export interface InsertStatement {
  readonly kind: 'insert';
  readonly table: string;
  readonly columns: readonly ColumnRef[];
  /** One array of values per row, in the order of `columns`. */
  readonly rows: readonly (readonly unknown[])[];
  readonly returning?: readonly ColumnRef[];
  /** Skip rows that would violate a unique constraint instead of failing. */
  readonly onConflictDoNothing?: boolean;
  /**
   * An upsert: a row whose `target` value is taken updates the existing row instead (only where
   * `where` holds on it), or leaves it and returns nothing. Several rows must send distinct
   * values and return `target`. Its returned rows carry UPSERT_INSERTED.
   */
  readonly onConflictUpdate?: UpsertClause;
}

/** `ON CONFLICT (target) DO UPDATE SET <each of update> = the sent value WHERE <where on the existing row>`. */
export interface UpsertClause {
  /** A column with a unique index of its own (or `id`). */
  readonly target: string;
  /** The columns the update sets to the values of the row that could not be inserted. */
  readonly update: readonly ColumnRef[];
  /** The condition the existing row must meet to be updated; absent: always. */
  readonly where?: Expr;
  /**
   * A returned column that `update` does not set and whose sent values no stored row holds (ids
   * made for these rows): a returned row holding a value sent in it was inserted, any other was
   * updated. An engine whose RETURNING cannot tell the two apart (SQLite) then need not read
   * which target values were taken first.
   */
  readonly freshColumn?: string;
}

/** The output column of an upsert that says whether its row was inserted (true) or updated (false). */
export const UPSERT_INSERTED: ColumnRef = Object.freeze({ name: '_rb_inserted', type: 'boolean' });

export interface Assignment {
  readonly column: ColumnRef;
  readonly value: Expr;
}

export interface UpdateStatement {
  readonly kind: 'update';
  readonly table: string;
  readonly set: readonly Assignment[];
  readonly where: Expr;
  readonly returning?: readonly ColumnRef[];
}

export interface DeleteStatement {
  readonly kind: 'delete';
  readonly table: string;
  readonly where: Expr;
  readonly returning?: readonly ColumnRef[];
}

export type Statement = SelectStatement | CountStatement | InsertStatement | UpdateStatement | DeleteStatement;

/** The columns a statement returns rows of: a select's columns, a write's `returning`, none for a count. */
export function resultColumns(statement: Statement): readonly ColumnRef[] {
  if (statement.kind === 'select') {
    const total = statement.totalAs === undefined ? [] : [{ name: statement.totalAs, type: 'integer' as const }];
    if (statement.computed)
      return [...statement.columns, ...statement.computed.map((c) => ({ name: c.key, type: c.type })), ...total];
    if (statement.aggregates)
      return [...statement.columns, ...statement.aggregates.map((a) => ({ name: a.key, type: a.type })), ...total];
    return total.length === 0 ? statement.columns : [...statement.columns, ...total];
  }
  if (statement.kind === 'count') return [];
  if (statement.kind === 'insert' && statement.onConflictUpdate)
    return [...(statement.returning ?? []), UPSERT_INSERTED];
  return statement.returning ?? [];
}

/** Small constructors so that callers read like the SQL they mean. */
export const sql = {
  column: (name: string): Expr => ({ kind: 'column', name }),
  value: (value: unknown, type: ValueType): Expr =>
    value === null || value === undefined ? { kind: 'null' } : { kind: 'value', value, type },
  eq: (name: string, value: unknown, type: ValueType = 'text'): Expr => ({
    kind: 'compare',
    op: '=',
    left: { kind: 'column', name },
    right: value === null ? { kind: 'null' } : { kind: 'value', value, type },
  }),
  and: (...items: (Expr | undefined)[]): Expr => {
    const present = items.filter((item): item is Expr => item !== undefined);
    return present.length === 1 ? present[0]! : { kind: 'and', items: present };
  },
  or: (...items: Expr[]): Expr => ({ kind: 'or', items }),
  not: (expr: Expr): Expr => ({ kind: 'not', expr }),
  isNull: (expr: Expr): Expr => ({ kind: 'is-null', expr, negated: false }),
  isNotNull: (expr: Expr): Expr => ({ kind: 'is-null', expr, negated: true }),
  bool: (value: boolean): Expr => ({ kind: 'bool', value }),
} as const;
