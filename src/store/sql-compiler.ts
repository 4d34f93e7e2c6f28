/**
 * Compiles SQL trees to text plus bound parameters. The skeleton is shared; each engine
 * supplies a `Dialect` with its quoting, placeholders, value encoding and the few operators
 * that differ. This file and the dialects are the only places that write SQL text for data.
 */
import {
  UPSERT_INSERTED,
  type AggregateFunction,
  type ColumnRef,
  type Expr,
  type SearchClause,
  type SelectStatement,
  type Statement,
  type UpsertClause,
  type ValueType,
} from '../query/sql-tree.js';

export interface CompiledSql {
  readonly sql: string;
  readonly params: unknown[];
}

/** How a LIKE matches (the `like` node of the tree has this shape, so it is passed as is). */
export interface LikeOptions {
  /** Letters match in either case (ASCII only, on every engine). */
  readonly caseInsensitive: boolean;
}

/** How an ORDER BY term sorts (an `OrderTerm` of the tree has this shape). */
export interface OrderOptions {
  readonly descending: boolean;
  /** The column never holds null: the engine may leave out its NULLS clause. */
  readonly notNull?: boolean;
}

/** How a select locks the rows it reads (a `SelectStatement` has this shape). */
export interface RowLockOptions {
  /** Skip rows another transaction holds instead of waiting for them. */
  readonly skipLocked?: boolean;
}

/** What differs between engines in data statements. */
export interface Dialect {
  /** Placeholder for the n-th parameter (1-based) of a value of `type` (engines that need a cast add it here). */
  placeholder(index: number, type: ValueType): string;
  /** Encodes a JS value of a column type into what the driver binds. */
  encode(value: unknown, type: ValueType): unknown;
  /** SQL for a constant true/false. */
  boolean(value: boolean): string;
  /** Null-safe "not equal": true when one side is null and the other is not. */
  nullSafeNotEqual(left: string, right: string): string;
  /** A LIKE match; `pattern` is a placeholder whose value is the LIKE pattern (escape `\`). */
  like(expr: string, pattern: string, options: LikeOptions): string;
  /** Turns the LIKE pattern into what `like()` expects bound (for example a GLOB pattern). */
  likePattern(pattern: string, options: LikeOptions): string;
  /** ORDER BY term for a column or expression (collation choices live here). */
  orderTerm(quoted: string, type: ValueType | undefined, options: OrderOptions): string;
  /** LIMIT/OFFSET clause. */
  limitOffset(limit: string | undefined, offset: string | undefined): string;
  /**
   * Row-lock clause appended to a select (skipping locked rows, or
   * waiting for them), or '' where the engine locks differently.
   */
  forUpdate(options: RowLockOptions): string;
  /** The quoted (and, where the engine has schemas, qualified) name of a table; default `quoteIdent`. */
  table?(name: string): string;
  /**
   * An expression that RETURNING of an upsert can read: true when the row was inserted, false
   * when it was updated. Absent where no statement can tell: that engine's executor tells.
   */
  readonly upsertInsertedFlag?: string;
  /**
   * Full-text search on `table` (its bare name; `qualified` is how statements name it): common
   * table expressions put before the statement (or ''), a clause joined after FROM (or ''; with
   * `ranked`, what `searchRank` reads) and a condition ANDed into WHERE (or ''). Values go
   * through `bind` in the order their text appears; this is called before anything else of the
   * statement is compiled, so only `with` may bind where placeholders are positional. `total`,
   * when the engine has a cheaper count than one over the statement's rows: an expression of
   * the number of rows matching the search alone, which the statement uses when it has no
   * other condition.
   */
  search(
    clause: SearchClause,
    table: string,
    qualified: string,
    bind: (value: unknown, type: ValueType) => string,
    options: SearchOptions,
  ): SearchSql;
  /**
   * The rank of the current row of `qualified` under `clause`: a number, higher is more
   * relevant. Called after `search` for the same statement; it may read what `search`'s
   * `ranked` join provides, and binds no value where placeholders are positional.
   */
  searchRank(clause: SearchClause, qualified: string, bind: (value: unknown, type: ValueType) => string): string;
  /**
   * The JSON text of `expr` (a column of `type`), never SQL NULL (`null` then): what
   * `JSON.stringify` makes of the value the data API decodes from it. `expr` may be read twice.
   */
  jsonText(expr: string, type: ValueType): string;
}

/** What a statement asks of its search. */
export interface SearchOptions {
  /** The statement orders by the rank (`searchRank` will be read). */
  readonly ranked: boolean;
  /**
   * The statement reads at most this many rows, the best ranked first, and has no condition
   * besides the search: the engine may leave out every row that ranks below the `top`-th (rows
   * ranked equal to it stay, for the order's later terms to decide).
   */
  readonly top?: number;
  /** With `top`: the order's next term is the id, ascending (rows ranked equal come by id). */
  readonly thenById?: boolean;
}

/** A search's parts of a statement (see `Dialect.search`). */
export interface SearchSql {
  readonly with: string;
  readonly join: string;
  readonly where: string;
  readonly total?: string;
}

/**
 * The alias of an upsert's table: its condition names the existing row by it, and a table
 * called "excluded" would otherwise make PostgreSQL's `excluded` ambiguous (no table name starts with `_`).
 */
const UPSERT_ROW = '"_rb_row"';

/** Quotes an identifier. Names are validated against the schema before they get here; quoting is the second fence. */
export function quoteIdent(name: string): string {
  // Valid names never hold a quote: skip the replace on the hot path, keep it as the fence.
  return name.includes('"') ? `"${name.replaceAll('"', '""')}"` : `"${name}"`;
}

/**
 * Quoted column lists of frozen column arrays (a compiled table's `readable`, reused by every
 * request). Bounded by the arrays alive (a WeakMap), and never stale: a frozen array cannot change.
 */
const columnListCache = new WeakMap<readonly ColumnRef[], string>();

/** `"a", "b", "c"` for the columns; cached when the array is frozen. */
function columnList(columns: readonly ColumnRef[]): string {
  let text = columnListCache.get(columns);
  if (text === undefined) {
    text = columns.map((c) => quoteIdent(c.name)).join(', ');
    if (Object.isFrozen(columns)) columnListCache.set(columns, text);
  }
  return text;
}

// Order of an expression term: its `notNull` never applies (only plain columns are known never
// to hold null). Shared constants, so compiling allocates nothing for them.
const ASCENDING_EXPRESSION: OrderOptions = Object.freeze({ descending: false });
const DESCENDING_EXPRESSION: OrderOptions = Object.freeze({ descending: true });

/** What compiling a relation path needs: table names, how to name the current row, fresh aliases. */
export interface PathContext {
  readonly table: (name: string) => string;
  readonly qualifier: string;
  readonly nextAlias: () => string;
  /**
   * Qualify plain column names with `qualifier`: an upsert's condition, where a bare name
   * could also mean the row that was not inserted (PostgreSQL refuses it as ambiguous).
   */
  readonly qualifyColumns?: boolean;
  /** The rank of the current row under the statement's search (absent without one). */
  readonly rank?: () => string;
}

/** `fn(column)` of an aggregate output; `count()` counts rows. */
function aggregateCall(fn: AggregateFunction, column: string | undefined): string {
  return column === undefined ? 'count(*)' : `${fn}(${quoteIdent(column)})`;
}

/**
 * The `top` of a select's search (see `SearchOptions`): its limit plus offset, when it has no
 * other condition, no grouping, and orders by the rank first. Undefined otherwise.
 */
function searchTop(statement: SelectStatement): number | undefined {
  const first = statement.orderBy?.[0];
  if (
    !statement.search ||
    statement.where ||
    statement.aggregates ||
    statement.perValueLimit ||
    statement.limit === undefined ||
    first?.expr?.kind !== 'search-rank' ||
    !first.descending
  )
    return undefined;
  return statement.limit + (statement.offset ?? 0);
}

/** Compiles statements for one dialect. Stateless; one instance per engine. */
export class SqlCompiler {
  constructor(protected readonly dialect: Dialect) {}

  /** Compiles one statement. Throws only on trees that no builder produces (a bug, not input). */
  compile(statement: Statement): CompiledSql {
    const params: unknown[] = [];
    const bind = this.binder(params);
    const table = (name: string): string => (this.dialect.table ? this.dialect.table(name) : quoteIdent(name));
    // Relation paths name the current row through its table; their subqueries get aliases _rb_p1, _rb_p2, ...
    let aliases = 0;
    const qualifier = 'table' in statement ? table(statement.table) : '';
    // The rank is compiled once per statement: its output and its ORDER BY term are then the
    // same text, which PostgreSQL evaluates once per row (with two sets of parameters, twice).
    let rank: string | undefined;
    const paths: PathContext = {
      table,
      qualifier,
      nextAlias: () => `"_rb_p${++aliases}"`,
      rank: () => {
        if (statement.kind !== 'select' || !statement.search)
          throw new Error('search-rank outside a select with search');
        rank ??= this.dialect.searchRank(statement.search, qualifier, bind);
        return rank;
      },
    };
    const expr = (node: Expr): string => this.expression(node, bind, paths);
    /** ` FROM table [JOIN ...] [WHERE ...]`, the search's join and condition first (SQLite binds in text order). */
    const fromWhere = (name: string, found: SearchSql | undefined, where: Expr | undefined) => {
      if (!found) return ` FROM ${table(name)}${where ? ` WHERE ${expr(where)}` : ''}`;
      const conditions = [found.where, ...(where ? [expr(where)] : [])].filter((c) => c !== '');
      return ` FROM ${table(name)}${found.join}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
    };
    // The search is compiled first: its common table expressions come first in the text.
    const searchOf = (name: string, search: SearchClause | undefined, options: SearchOptions) =>
      search && this.dialect.search(search, name, table(name), bind, options);
    const withClause = (found: SearchSql | undefined) => (found?.with ? `WITH ${found.with} ` : '');
    const returning = (columns: readonly ColumnRef[] | undefined): string =>
      columns && columns.length > 0 ? ` RETURNING ${columnList(columns)}` : '';

    switch (statement.kind) {
      case 'select': {
        const aggregates = statement.aggregates;
        // The engine ranks (SQLite joins its FTS table's scores) only when the order reads the rank.
        const ranked = statement.orderBy?.some((term) => term.expr?.kind === 'search-rank') === true;
        const top = searchTop(statement);
        const second = statement.orderBy?.[1];
        const thenById = second?.column === 'id' && !second.expr && !second.descending;
        const found = searchOf(statement.table, statement.search, { ranked, top, thenById });
        const outputs = aggregates
          ? [
              ...statement.columns.map((c) => quoteIdent(c.name)),
              ...aggregates.map((a) => `${aggregateCall(a.fn, a.column)} AS ${quoteIdent(a.key)}`),
            ].join(', ')
          : columnList(statement.columns);
        let computed = (statement.computed ?? []).map((c) => `, ${expr(c.expr)} AS ${quoteIdent(c.key)}`).join('');
        if (statement.totalAs !== undefined) {
          const total = found?.total !== undefined && !statement.where ? found.total : 'count(*) OVER ()';
          computed += `, ${total} AS ${quoteIdent(statement.totalAs)}`;
        }
        const from = fromWhere(statement.table, found, statement.where);
        let text = `SELECT ${outputs}${computed}${from}`;
        if (aggregates && statement.columns.length > 0) text += ` GROUP BY ${columnList(statement.columns)}`;
        let order = '';
        if (statement.orderBy && statement.orderBy.length > 0) {
          // Output keys of aggregates order by their alias, without a collation clause (the alias is no input column).
          const types = new Map<string, ValueType | undefined>(statement.columns.map((c) => [c.name, c.type] as const));
          for (const a of aggregates ?? []) if (!types.has(a.key)) types.set(a.key, undefined);
          order = ` ORDER BY ${statement.orderBy
            .map((term) =>
              term.expr
                ? this.dialect.orderTerm(
                    expr(term.expr),
                    term.type,
                    term.descending ? DESCENDING_EXPRESSION : ASCENDING_EXPRESSION,
                  )
                : this.dialect.orderTerm(quoteIdent(term.column), types.get(term.column), term),
            )
            .join(', ')}`;
        }
        if (statement.perValueLimit) {
          // The first N rows per value of a column, in the statement's order: one window query for every parent.
          const partition = quoteIdent(statement.perValueLimit.column);
          const ranked = text.replace(
            /^SELECT /,
            `SELECT ROW_NUMBER() OVER (PARTITION BY ${partition}${order}) AS "_rb_rank", `,
          );
          text =
            `SELECT ${columnList(statement.columns)} FROM (${ranked}) AS "_rb_ranked" ` +
            `WHERE "_rb_rank" <= ${bind(statement.perValueLimit.limit, 'integer')}`;
        }
        text += order;
        const limit = statement.limit === undefined ? undefined : bind(statement.limit, 'integer');
        const offset =
          statement.offset === undefined || statement.offset === 0 ? undefined : bind(statement.offset, 'integer');
        text += this.dialect.limitOffset(limit, offset);
        if (statement.forUpdate) text += this.dialect.forUpdate(statement);
        return { sql: withClause(found) + text, params };
      }
      case 'count': {
        const found = searchOf(statement.table, statement.search, { ranked: false });
        if (statement.groupBy) {
          let inner = `SELECT 1 AS one${fromWhere(statement.table, found, statement.where)}`;
          if (statement.groupBy.length > 0) inner += ` GROUP BY ${statement.groupBy.map(quoteIdent).join(', ')}`;
          return { sql: `${withClause(found)}SELECT count(*) AS n FROM (${inner}) AS groups`, params };
        }
        // A search alone: the engine's own count of its matches, without reading the table.
        if (found?.total !== undefined && !statement.where)
          return { sql: `${withClause(found)}SELECT ${found.total} AS n`, params };
        return {
          sql: `${withClause(found)}SELECT count(*) AS n${fromWhere(statement.table, found, statement.where)}`,
          params,
        };
      }
      case 'insert': {
        const names = columnList(statement.columns);
        const rows = statement.rows
          .map(
            (row) =>
              `(${statement.columns
                .map((column, i) => (row[i] === null || row[i] === undefined ? 'NULL' : bind(row[i], column.type)))
                .join(', ')})`,
          )
          .join(', ');
        const upsert = statement.onConflictUpdate;
        const conflict = upsert
          ? this.upsertClause(upsert, bind, paths)
          : statement.onConflictDoNothing
            ? ' ON CONFLICT DO NOTHING'
            : '';
        const flag =
          upsert && this.dialect.upsertInsertedFlag
            ? `, ${this.dialect.upsertInsertedFlag} AS ${quoteIdent(UPSERT_INSERTED.name)}`
            : '';
        return {
          sql:
            `INSERT INTO ${table(statement.table)}${upsert ? ` AS ${UPSERT_ROW}` : ''} (${names}) VALUES ` +
            `${rows}${conflict}${returning(statement.returning)}${flag}`,
          params,
        };
      }
      case 'update': {
        const set = statement.set.map((a) => `${quoteIdent(a.column.name)} = ${expr(a.value)}`).join(', ');
        return {
          sql:
            `UPDATE ${table(statement.table)} SET ${set} WHERE ` +
            `${expr(statement.where)}${returning(statement.returning)}`,
          params,
        };
      }
      case 'delete':
        return {
          sql: `DELETE FROM ${table(statement.table)} WHERE ${expr(statement.where)}${returning(statement.returning)}`,
          params,
        };
    }
  }

  /** Binds a value: encodes it into `params` and returns its placeholder. */
  protected binder(params: unknown[]): (value: unknown, type: ValueType) => string {
    return (value, type) => {
      params.push(this.dialect.encode(value, type));
      return this.dialect.placeholder(params.length, type);
    };
  }

  /** The quoted (and where the engine has schemas, qualified) name of a table. */
  protected tableName(name: string): string {
    return this.dialect.table ? this.dialect.table(name) : quoteIdent(name);
  }

  /** A relation-path context naming the current row by `qualifier`, with fresh aliases. */
  protected pathContext(qualifier: string): PathContext {
    let aliases = 0;
    return { table: (name) => this.tableName(name), qualifier, nextAlias: () => `"_rb_p${++aliases}"` };
  }

  /** ` ON CONFLICT ("target") DO UPDATE SET "c" = excluded."c", ... WHERE <condition on the existing row>`. */
  private upsertClause(
    clause: UpsertClause,
    bind: (value: unknown, type: ValueType) => string,
    paths: PathContext,
  ): string {
    const set = clause.update.map((c) => `${quoteIdent(c.name)} = excluded.${quoteIdent(c.name)}`).join(', ');
    const existing = { ...paths, qualifier: UPSERT_ROW, qualifyColumns: true };
    const where = clause.where ? ` WHERE ${this.expression(clause.where, bind, existing)}` : '';
    return ` ON CONFLICT (${quoteIdent(clause.target)}) DO UPDATE SET ${set}${where}`;
  }

  /** Compiles an expression, binding its values through `bind`. */
  protected expression(node: Expr, bind: (value: unknown, type: ValueType) => string, paths: PathContext): string {
    const recur = (child: Expr): string => this.expression(child, bind, paths);
    switch (node.kind) {
      case 'path': {
        // The start column belongs to the row the path starts from:
        // qualify it, since a hop's table may have a column of that name.
        let value = node.from.kind === 'column' ? `${paths.qualifier}.${quoteIdent(node.from.name)}` : recur(node.from);
        for (const hop of node.hops) {
          const alias = paths.nextAlias();
          // A guard's own paths start from the hop's row.
          const guard = hop.guard ? ` AND ${this.expression(hop.guard, bind, { ...paths, qualifier: alias })}` : '';
          value =
            `(SELECT ${alias}.${quoteIdent(hop.column)} FROM ` +
            `${paths.table(hop.table)} AS ${alias} WHERE ${alias}."id" = ${value}${guard})`;
        }
        return value;
      }
      case 'column':
        return paths.qualifyColumns ? `${paths.qualifier}.${quoteIdent(node.name)}` : quoteIdent(node.name);
      case 'row':
        return `(${node.items.map(recur).join(', ')})`;
      case 'value':
        return bind(node.value, node.type);
      case 'null':
        return 'NULL';
      case 'bool':
        return this.dialect.boolean(node.value);
      case 'compare': {
        const left = recur(node.left);
        const right = recur(node.right);
        return node.op === '!=' ? this.dialect.nullSafeNotEqual(left, right) : `(${left} ${node.op} ${right})`;
      }
      case 'is-null':
        return `(${recur(node.expr)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
      case 'like': {
        const target = recur(node.expr);
        const pattern = bind(this.dialect.likePattern(node.pattern, node), 'text');
        const match = this.dialect.like(target, pattern, node);
        // Negated matches are null-safe like `!=`: a null value "does not contain" anything.
        return node.negated ? `(${target} IS NULL OR NOT ${match})` : match;
      }
      case 'in':
        if (node.values.length === 0) return this.dialect.boolean(false);
        return `(${recur(node.expr)} IN (${node.values.map(recur).join(', ')}))`;
      case 'and':
      case 'or':
        if (node.items.length === 0) return this.dialect.boolean(node.kind === 'and');
        return `(${node.items.map(recur).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${recur(node.expr)})`;
      case 'add':
        return `(${recur(node.left)} + ${recur(node.right)})`;
      case 'search-rank':
        if (!paths.rank) throw new Error('search-rank outside a select with search');
        return paths.rank();
    }
  }
}
