/**
 * Runs compiled statements on one SQLite connection: prepared statements cached by SQL text,
 * rows decoded to the engine-neutral types, errors translated. It knows nothing of locks or
 * durability (sqlite-database.ts does); it counts write statements so a transaction can tell
 * whether it wrote.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { resultColumns, type ColumnRef, type SelectStatement } from '../../query/sql-tree.js';
import type { Executor, Row, TableChange } from '../types.js';
import { compileStatement, decodeSqliteValue } from './sqlite-compiler.js';
import { applyTableChange } from './sqlite-ddl.js';
import { translateSqliteError } from './sqlite-errors.js';
import { echoedInsertRow } from './sqlite-insert-echo.js';

const STATEMENT_CACHE_SIZE = 500;

function decodeRow(raw: Record<string, unknown>, columns: readonly ColumnRef[]): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = decodeSqliteValue(raw[column.name], column.type);
  return row;
}

/**
 * Decodes the rows of a select where they stand: a select's raw rows hold exactly its result
 * columns, in order, and only booleans and json need a new value; a page of rows is then not
 * copied key by key into new objects.
 */
function decodeSelected(raws: Record<string, unknown>[], columns: readonly ColumnRef[]): Row[] {
  for (const [index, column] of columns.entries()) {
    if (column.type !== 'boolean' && column.type !== 'json') continue;
    // A column named twice is one key of the raw row: decode it once (json text parsed twice would fail).
    if (columns.findIndex((c) => c.name === column.name) !== index) continue;
    for (const raw of raws) raw[column.name] = decodeSqliteValue(raw[column.name], column.type);
  }
  return raws;
}

/**
 * The id of a select that reads one row by id and nothing else (`WHERE "id" = ?`, no other
 * clause): GET by id under an open view rule or the admin key. Undefined for any other statement.
 */
function idLookup(statement: SelectStatement): string | undefined {
  const { where } = statement;
  if (where?.kind !== 'compare' || where.op !== '=' || where.left.kind !== 'column' || where.left.name !== 'id' || where.right.kind !== 'value') return undefined;
  if (statement.aggregates || statement.computed || statement.perValueLimit || statement.orderBy || statement.limit !== undefined || statement.offset !== undefined) return undefined;
  return where.right.type === 'text' && typeof where.right.value === 'string' ? where.right.value : undefined;
}

/** A prepared by-id select, valid while `generation` is the statements' current one. */
interface ByIdStatement {
  readonly table: string;
  readonly generation: number;
  readonly statement: BetterSqlite3.Statement;
}

export class SqliteStatements {
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();
  /**
   * By-id selects, keyed by their column list: a compiled table's `readable` array, the same
   * object on every GET of that table and schema version, so the SQL text is neither compiled
   * nor looked up again. Weak, so replaced tables leave nothing behind.
   */
  private readonly byId = new WeakMap<readonly ColumnRef[], ByIdStatement>();
  /** Moves when prepared statements are forgotten (connection closed, DDL): older by-id entries are stale. */
  private generation = 0;
  /** Whether each table is STRICT (see echoedInsertRow); forgotten with the statements on DDL. */
  private readonly strictTables = new Map<string, boolean>();
  /** Write statements run so far. */
  writes = 0;

  /** `connection` opens the connection on first use (and again after the database released it). */
  constructor(private readonly connection: () => BetterSqlite3.Database) {}

  /** Forgets prepared statements: their connection is closing. */
  forget(): void {
    this.prepared.clear();
    this.strictTables.clear();
    this.generation++;
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.prepared.get(sql);
    if (statement) return statement;
    statement = this.connection().prepare(sql);
    if (this.prepared.size >= STATEMENT_CACHE_SIZE) {
      // Drop the oldest entry; Map keeps insertion order.
      this.prepared.delete(this.prepared.keys().next().value!);
    }
    this.prepared.set(sql, statement);
    return statement;
  }

  all(statement: Parameters<Executor['all']>[0]): Row[] {
    if (statement.kind !== 'select') this.writes++;
    try {
      const columns = resultColumns(statement);
      if (statement.kind === 'insert' && statement.rows.length > 1) {
        // One prepared single-row statement per row: no variable limit, and fast in a transaction.
        const out: Row[] = [];
        for (const row of statement.rows) out.push(...this.all({ ...statement, rows: [row] }));
        return out;
      }
      if (statement.kind === 'insert') {
        const echoed = echoedInsertRow(statement, (table) => this.isStrict(table));
        if (echoed) {
          this.run(statement);
          return [echoed];
        }
      }
      const { sql, params } = compileStatement(statement);
      const prepared = this.prepare(sql);
      if (!prepared.reader) {
        prepared.run(...(params as never[]));
        return [];
      }
      const raws = prepared.all(...(params as never[])) as Record<string, unknown>[];
      return statement.kind === 'select' ? decodeSelected(raws, columns) : raws.map((raw) => decodeRow(raw, columns));
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private isStrict(table: string): boolean {
    let strict = this.strictTables.get(table);
    if (strict === undefined) {
      strict = this.connection().prepare('SELECT "strict" FROM pragma_table_list WHERE "schema" = \'main\' AND "name" = ?').pluck().get(table) === 1;
      this.strictTables.set(table, strict);
    }
    return strict;
  }

  first(statement: Parameters<Executor['first']>[0]): Row | undefined {
    // A select needs one row: step once instead of collecting them all (writes take the general path).
    if (statement.kind !== 'select') return this.all(statement)[0];
    try {
      const id = idLookup(statement);
      if (id !== undefined) return this.firstById(statement, id);
      const { sql, params } = compileStatement(statement);
      const raw = this.prepare(sql).get(...(params as never[])) as Record<string, unknown> | undefined;
      return raw === undefined ? undefined : decodeRow(raw, statement.columns);
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private firstById(statement: SelectStatement, id: string): Row | undefined {
    let cached = this.byId.get(statement.columns);
    if (cached === undefined || cached.generation !== this.generation || cached.table !== statement.table) {
      // The compiled text has one parameter, the id.
      cached = { table: statement.table, generation: this.generation, statement: this.prepare(compileStatement(statement).sql) };
      this.byId.set(statement.columns, cached);
    }
    const raw = cached.statement.get(id) as Record<string, unknown> | undefined;
    return raw === undefined ? undefined : decodeRow(raw, statement.columns);
  }

  count(statement: Parameters<Executor['count']>[0]): number {
    try {
      const { sql, params } = compileStatement(statement);
      return (this.prepare(sql).pluck().get(...(params as never[])) as number) ?? 0;
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  run(statement: Parameters<Executor['run']>[0]): number {
    this.writes++;
    try {
      if (statement.kind === 'insert' && statement.rows.length > 1) {
        let changes = 0;
        for (const row of statement.rows) changes += this.run({ ...statement, rows: [row], returning: undefined });
        return changes;
      }
      const { sql, params } = compileStatement({ ...statement, returning: undefined });
      return this.prepare(sql).run(...(params as never[])).changes;
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  changeTable(change: TableChange): void {
    try {
      applyTableChange(this.connection(), change);
      // DDL invalidates prepared statements that name the table.
      this.forget();
    } catch (error) {
      throw translateSqliteError(error);
    }
  }
}
