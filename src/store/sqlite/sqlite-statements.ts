/**
 * Runs compiled statements on one SQLite connection: prepared statements cached by SQL text,
 * rows decoded to the engine-neutral types, errors translated. It knows nothing of locks or
 * durability (sqlite-database.ts does); it counts write statements so a transaction can tell
 * whether it wrote.
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  resultColumns,
  sql as tree,
  UPSERT_INSERTED,
  type ColumnRef,
  type DeleteStatement,
  type InsertStatement,
  type SelectStatement,
  type UpdateStatement,
} from '../../query/sql-tree.js';
import type { Executor, LoggedWrite, Row, RowLog, TableChange } from '../types.js';
import { compileLogBefore, compileStatement, decodeSqliteValue, encodeSqliteValue } from './sqlite-compiler.js';
import { applyTableChange } from './sqlite-ddl.js';
import { translateSqliteError } from './sqlite-errors.js';
import { echoedInsertRow } from './sqlite-insert-echo.js';
import { buildRowBuilder, type RowBuilder } from './sqlite-rows.js';
import { InsertTexts, MAY_HOLD_NULLS, NULL_FREE, type InsertShapeOptions } from '../insert-texts.js';

const STATEMENT_CACHE_SIZE = 500;
/** Rows per statement of a multi-row insert (insertEach): a few prepared texts per shape. */
const ROWS_PER_INSERT = 100;
/** Bound parameters per statement: the limit of every SQLite build (newer ones allow 32,766). */
const SAFE_PARAMETERS = 999;

/** Distinct insert shapes whose SQL text is kept (insertSql), and the characters of text in all. */
const INSERT_TEXT_LIMITS = Object.freeze({ entries: 500, chars: 4_000_000 });
/** Distinct texts that read an upsert's taken values. */
const TAKEN_VALUE_TEXT_CACHE_SIZE = 500;

/** Whether an insert reads back what RETURNING names, or only counts the rows it wrote. */
interface InsertReadOptions {
  readonly read: boolean;
}

/** How insertPlain answers: read RETURNING (or, with `rowid`, work the key's numbers out from the last rowid). */
interface PlainInsertOptions {
  readonly read: boolean;
  readonly rowid: boolean;
}

// Shared option objects: inserts run per write request, and these allocate nothing per call.
const READ_ROWS: InsertReadOptions = Object.freeze({ read: true });
const COUNT_ROWS: InsertReadOptions = Object.freeze({ read: false });

/** What a multi-row insert read back (RETURNING) and how many rows it wrote. */
interface InsertResult {
  readonly rows: Row[];
  changes: number;
}

function decodeRow(raw: Record<string, unknown>, columns: readonly ColumnRef[]): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = decodeSqliteValue(raw[column.name], column.type);
  return row;
}

/**
 * The id of a select that reads one row by id and nothing else (`WHERE "id" = ?`, no other
 * clause): GET by id under an open view rule or the admin key. Undefined for any other statement.
 */
function idLookup(statement: SelectStatement): string | undefined {
  const { where } = statement;
  if (
    where?.kind !== 'compare' ||
    where.op !== '=' ||
    where.left.kind !== 'column' ||
    where.left.name !== 'id' ||
    where.right.kind !== 'value'
  )
    return undefined;
  if (
    statement.aggregates ||
    statement.computed ||
    statement.perValueLimit ||
    statement.orderBy ||
    statement.limit !== undefined ||
    statement.offset !== undefined
  )
    return undefined;
  return where.right.type === 'text' && typeof where.right.value === 'string' ? where.right.value : undefined;
}

/** A prepared by-id select, valid while `generation` is the statements' current one. */
interface ByIdStatement {
  readonly table: string;
  readonly generation: number;
  readonly statement: BetterSqlite3.Statement;
  readonly build: RowBuilder;
}

export class SqliteStatements {
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();
  /**
   * The row builder of each prepared select, which runs in raw mode (sqlite-rows.ts). By
   * statement object: a statement dropped from the cache or forgotten takes its builder along.
   */
  private readonly builders = new WeakMap<BetterSqlite3.Statement, RowBuilder>();
  /**
   * By-id selects, keyed by their column list: a compiled table's `readable` array, the same
   * object on every GET of that table and schema version, so the SQL text is neither compiled
   * nor looked up again. Weak, so replaced tables leave nothing behind.
   */
  private readonly byId = new WeakMap<readonly ColumnRef[], ByIdStatement>();
  /** Moves when prepared statements are forgotten (connection closed, DDL): older by-id entries are stale. */
  private generation = 0;
  /**
   * Insert SQL text by shape (insert-texts.ts): a bulk write compiles the same few texts for
   * every row and every event-log chunk, and compiling them was a tenth of its CPU.
   */
  private readonly insertTexts = new InsertTexts(
    INSERT_TEXT_LIMITS,
    (statement) => compileStatement(statement).sql,
    encodeSqliteValue,
  );
  /** The SQL text that reads which of an upsert's values are taken, by table, column, type and number of values. */
  private readonly takenValueTexts = new Map<string, string>();
  /** Whether each table is STRICT (see echoedInsertRow); forgotten with the statements on DDL. */
  private readonly strictTables = new Map<string, boolean>();
  /** Each table's AUTOINCREMENT key column (see returnsRowid); forgotten with the statements on DDL. */
  private readonly autoincrementKeys = new Map<string, string | null>();
  /** Write statements run so far. */
  writes = 0;

  /** `connection` opens the connection on first use (and again after the database released it). */
  constructor(private readonly connection: () => BetterSqlite3.Database) {}

  /** Forgets prepared statements: their connection is closing. */
  forget(): void {
    this.prepared.clear();
    this.insertTexts.clear();
    this.takenValueTexts.clear();
    this.strictTables.clear();
    this.autoincrementKeys.clear();
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

  /**
   * An insert's SQL text (compiled once per shape) and its parameters, each value encoded as
   * the compiler would bind it: the same text and parameters as compileStatement.
   */
  private insertSql(
    statement: InsertStatement,
    shapeOptions: InsertShapeOptions = MAY_HOLD_NULLS,
  ): { sql: string; params: unknown[] } {
    return this.insertTexts.get(statement, shapeOptions) ?? compileStatement(statement);
  }

  all(statement: Parameters<Executor['all']>[0]): Row[] {
    if (statement.kind !== 'select') this.writes++;
    try {
      if (statement.kind === 'insert' && statement.onConflictUpdate) return this.upsert(statement);
      const columns = resultColumns(statement);
      if (statement.kind === 'insert' && statement.rows.length > 1) return this.insertEach(statement, READ_ROWS).rows;
      if (statement.kind === 'insert') {
        const echoed = echoedInsertRow(statement, (table) => this.isStrict(table));
        if (echoed) {
          this.run(statement);
          return [echoed];
        }
      }
      const { sql, params } = statement.kind === 'insert' ? this.insertSql(statement) : compileStatement(statement);
      const prepared = this.prepare(sql);
      if (statement.kind === 'select') {
        const build = this.selectBuilder(prepared, columns);
        const raws = prepared.all(...(params as never[])) as unknown[][];
        const rows: Row[] = new Array(raws.length);
        for (let i = 0; i < raws.length; i++) rows[i] = build(raws[i]!);
        return rows;
      }
      if (!prepared.reader) {
        prepared.run(...(params as never[]));
        return [];
      }
      // Object mode: insertEach may have left this statement (same SQL text) in raw mode.
      const raws = prepared.raw(false).all(...(params as never[])) as Record<string, unknown>[];
      return raws.map((raw) => decodeRow(raw, columns));
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  /**
   * An upsert (`onConflictUpdate`), its rows marked inserted or updated. SQLite's RETURNING
   * cannot tell which: a row holding a value of the clause's `freshColumn` sent in it was
   * inserted; without one, the rows holding the sent target values are looked for first
   * (nothing can write in between: this connection is the only writer, and no await separates
   * the two).
   */
  private upsert(statement: InsertStatement): Row[] {
    // Statements within the portable limit of bound values (a condition binds a few more).
    const perStatement = Math.max(1, Math.floor((SAFE_PARAMETERS - 99) / statement.columns.length));
    if (statement.rows.length <= perStatement) return this.upsertRows(statement);
    const out: Row[] = [];
    for (let i = 0; i < statement.rows.length; i += perStatement)
      for (const row of this.upsertRows({ ...statement, rows: statement.rows.slice(i, i + perStatement) }))
        out.push(row);
    return out;
  }

  /** One statement of `upsert`. */
  private upsertRows(statement: InsertStatement): Row[] {
    const { target, where, update, freshColumn } = statement.onConflictUpdate!;
    const returning = statement.returning;
    const index = statement.columns.findIndex((c) => c.name === target);
    if (!returning || (statement.rows.length > 1 && !returning.some((c) => c.name === target)))
      throw new Error('an upsert returns its rows, and several rows their conflict column');
    const fresh =
      freshColumn !== undefined &&
      returning.some((c) => c.name === freshColumn) &&
      !update.some((c) => c.name === freshColumn)
        ? statement.columns.findIndex((c) => c.name === freshColumn)
        : -1;
    const sent = fresh === -1 ? undefined : new Set(statement.rows.map((row) => row[fresh]));
    const taken = sent ? undefined : index === -1 ? new Set<unknown>() : this.takenValues(statement, index);
    // Without a condition (admin key, open update rule) the text is an insert's, compiled once per shape.
    const { sql, params } = where ? compileStatement(statement) : this.insertSql(statement);
    const prepared = this.prepare(sql);
    // Raw mode and a row builder: the row object made once, in one literal (sqlite-rows.ts).
    const build = this.selectBuilder(prepared, returning);
    const raws = prepared.all(...(params as never[])) as unknown[][];
    const rows: Row[] = new Array(raws.length);
    const single = statement.rows.length === 1;
    for (let i = 0; i < raws.length; i++) {
      const row = build(raws[i]!);
      // Several rows send distinct values (the tree's rule): each one's own value tells.
      row[UPSERT_INSERTED.name] = sent
        ? sent.has(row[freshColumn!])
        : single
          ? taken!.size === 0
          : !taken!.has(row[target]);
      rows[i] = row;
    }
    return rows;
  }

  /** The stored values, among those the upsert's rows send in column `index` (its conflict target), already taken. */
  private takenValues(statement: InsertStatement, index: number): Set<unknown> {
    const column = statement.columns[index]!;
    const values = statement.rows.map((row) => row[index]).filter((value) => value !== null && value !== undefined);
    if (values.length === 0) return new Set();
    const key = `${statement.table}\u0000${column.name}\u0000${column.type}\u0000${values.length}`;
    let sql = this.takenValueTexts.get(key);
    if (sql === undefined) {
      sql = compileStatement({
        kind: 'select',
        table: statement.table,
        columns: [column],
        where: { kind: 'in', expr: tree.column(column.name), values: values.map((v) => tree.value(v, column.type)) },
      }).sql;
      if (this.takenValueTexts.size >= TAKEN_VALUE_TEXT_CACHE_SIZE) this.takenValueTexts.clear();
      this.takenValueTexts.set(key, sql);
    }
    const encoded = values.map((value) => encodeSqliteValue(value, column.type));
    return new Set(
      this.prepare(sql)
        .pluck()
        .all(...(encoded as never[])),
    );
  }

  /**
   * A multi-row insert, in statements of up to ROWS_PER_INSERT rows (fewer when the table is
   * wide) and single-row ones for the rest, each compiled and prepared once per call and run
   * with the rows' encoded values: a bulk write's rows and event-log entries are hundreds of
   * rows, and a statement per row was most of their cost. A row holding a null (compiled as
   * the literal NULL, so other SQL text), or one whose RETURNING cannot be answered without
   * reading it back, is written on its own by the general path. With `read`, returns what
   * RETURNING reads, in row order: rows that echoedInsertRow answers from their values, and
   * the numbers of a table's AUTOINCREMENT key (returnsRowid), are written without
   * RETURNING. Always the number of rows written.
   */
  private insertEach(statement: InsertStatement, readOptions: InsertReadOptions): InsertResult {
    const { read } = readOptions;
    const out: InsertResult = { rows: [], changes: 0 };
    const perStatement = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(SAFE_PARAMETERS / statement.columns.length)));
    // echoedInsertRow answers only when every returned column is inserted: otherwise no row needs the check.
    const echoable =
      read && statement.returning?.every((r) => statement.columns.some((c) => c.name === r.name)) === true;
    const rowid = read && !echoable && this.returnsRowid(statement);
    const plainOptions: PlainInsertOptions = { read: read && !echoable, rowid };
    let plain: (readonly unknown[])[] = [];
    let echoed: Row[] = [];
    const writePlain = () => {
      let i = 0;
      for (; i + perStatement <= plain.length; i += perStatement)
        this.insertPlain(statement, plain.slice(i, i + perStatement), plainOptions, out);
      for (; i < plain.length; i++) this.insertPlain(statement, [plain[i]!], plainOptions, out);
      for (const row of echoed) out.rows.push(row);
      plain = [];
      echoed = [];
    };
    const single = (values: readonly unknown[]): InsertStatement => ({
      ...statement,
      rows: [values],
      ...(!read && { returning: undefined }),
    });
    for (const values of statement.rows) {
      if (!values.some((value) => value === null || value === undefined)) {
        if (!echoable) {
          plain.push(values);
          continue;
        }
        const row = echoedInsertRow(single(values), (table) => this.isStrict(table));
        if (row) {
          plain.push(values);
          echoed.push(row);
          continue;
        }
      }
      writePlain();
      if (read) out.rows.push(...this.all(single(values)));
      else out.changes += this.run(single(values));
    }
    writePlain();
    return out;
  }

  /**
   * Runs one insert of `rows` (no nulls: the SQL text depends only on their count) with their
   * encoded values; with `read`, collects what RETURNING reads (computed from the last rowid
   * when `rowid`).
   */
  private insertPlain(
    statement: InsertStatement,
    rows: readonly (readonly unknown[])[],
    { read, rowid }: PlainInsertOptions,
    out: InsertResult,
  ): void {
    const chunk: InsertStatement = { ...statement, rows, ...((!read || rowid) && { returning: undefined }) };
    const { sql, params } = this.insertSql(chunk, NULL_FREE);
    const prepared = this.prepare(sql);
    if (!prepared.reader) {
      const { changes, lastInsertRowid } = prepared.run(...(params as never[]));
      out.changes += changes;
      if (read && rowid) {
        // One writer, one statement: its rows took the numbers up to the last one, in row order.
        const name = statement.returning![0]!.name;
        const last = Number(lastInsertRowid);
        for (let seq = last - changes + 1; seq <= last; seq++) out.rows.push({ [name]: seq });
      }
      return;
    }
    const build = this.selectBuilder(prepared, resultColumns(chunk));
    const raws = prepared.all(...(params as never[])) as unknown[][];
    out.changes += raws.length;
    for (const raw of raws) out.rows.push(build(raw));
  }

  /**
   * True when `statement` returns only its table's AUTOINCREMENT key, which it does not insert,
   * and skips no row (no conflict clause). Such a key is the rowid, and SQLite gives the rows of
   * one INSERT consecutive numbers in row order (AUTOINCREMENT never reuses or jumps back: past
   * the largest, it fails with SQLITE_FULL), so they follow from the last one without reading
   * them back: the event log's entries.
   */
  private returnsRowid(statement: InsertStatement): boolean {
    const returning = statement.returning;
    if (returning?.length !== 1 || statement.onConflictDoNothing) return false;
    const name = returning[0]!.name;
    if (returning[0]!.type !== 'integer' || statement.columns.some((c) => c.name === name)) return false;
    return this.autoincrementKey(statement.table) === name;
  }

  /** The table's `INTEGER PRIMARY KEY AUTOINCREMENT` column, or null; forgotten with the statements on DDL. */
  private autoincrementKey(table: string): string | null {
    let key = this.autoincrementKeys.get(table);
    if (key === undefined) {
      const db = this.connection();
      const sqlText = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table);
      const pk = db.prepare('SELECT name, type FROM pragma_table_info(?) WHERE pk > 0').all(table) as {
        name: string;
        type: string;
      }[];
      key =
        typeof sqlText === 'string' &&
        /\bAUTOINCREMENT\b/i.test(sqlText) &&
        pk.length === 1 &&
        pk[0]!.type === 'INTEGER'
          ? pk[0]!.name
          : null;
      this.autoincrementKeys.set(table, key);
    }
    return key;
  }

  /** Puts a prepared select in raw mode and returns its row builder (built once per statement). */
  private selectBuilder(prepared: BetterSqlite3.Statement, columns: readonly ColumnRef[]): RowBuilder {
    // Every time, not once: a mode is a property of the statement object (count() plucks).
    prepared.raw(true);
    let build = this.builders.get(prepared);
    if (!build) {
      build = buildRowBuilder(
        prepared.columns().map((column) => column.name),
        columns,
      );
      this.builders.set(prepared, build);
    }
    return build;
  }

  private isStrict(table: string): boolean {
    let strict = this.strictTables.get(table);
    if (strict === undefined) {
      strict =
        this.connection()
          .prepare('SELECT "strict" FROM pragma_table_list WHERE "schema" = \'main\' AND "name" = ?')
          .pluck()
          .get(table) === 1;
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
      const prepared = this.prepare(sql);
      const build = this.selectBuilder(prepared, resultColumns(statement));
      const raw = prepared.get(...(params as never[])) as unknown[] | undefined;
      return raw === undefined ? undefined : build(raw);
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  private firstById(statement: SelectStatement, id: string): Row | undefined {
    let cached = this.byId.get(statement.columns);
    if (cached === undefined || cached.generation !== this.generation || cached.table !== statement.table) {
      // The compiled text has one parameter, the id.
      const prepared = this.prepare(compileStatement(statement).sql);
      cached = {
        table: statement.table,
        generation: this.generation,
        statement: prepared,
        build: this.selectBuilder(prepared, statement.columns),
      };
      this.byId.set(statement.columns, cached);
    }
    const raw = cached.statement.get(id) as unknown[] | undefined;
    return raw === undefined ? undefined : cached.build(raw);
  }

  count(statement: Parameters<Executor['count']>[0]): number {
    try {
      const { sql, params } = compileStatement(statement);
      return (
        (this.prepare(sql)
          .pluck()
          .get(...(params as never[])) as number) ?? 0
      );
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  run(statement: Parameters<Executor['run']>[0]): number {
    this.writes++;
    try {
      if (statement.kind === 'insert' && statement.onConflictUpdate) return this.upsert(statement).length;
      if (statement.kind === 'insert' && statement.rows.length > 1)
        return this.insertEach(statement, COUNT_ROWS).changes;
      const plain = { ...statement, returning: undefined };
      const { sql, params } = plain.kind === 'insert' ? this.insertSql(plain) : compileStatement(plain);
      return this.prepare(sql).run(...(params as never[])).changes;
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  /**
   * Logs the rows `write` is about to change, then runs it (one writer at a time: in the same
   * transaction the same WHERE meets the same rows; the two counts are compared all the same).
   * AUTOINCREMENT numbers one statement's entries consecutively up to `last_insert_rowid`.
   */
  writeLoggingRows(write: UpdateStatement | DeleteStatement, log: RowLog): LoggedWrite {
    this.writes++;
    try {
      const logged = compileLogBefore(write, log);
      const { changes: count, lastInsertRowid } = this.prepare(logged.sql).run(...(logged.params as never[]));
      const { sql, params } = compileStatement({ ...write, returning: undefined });
      const changed = this.prepare(sql).run(...(params as never[])).changes;
      // `changes` leaves out rows a cascade deleted, and a table that references itself can
      // cascade into rows the filter matched too: they were deleted and logged, so a delete may
      // change fewer rows directly than it logged (PostgreSQL counts them all). An update cannot.
      if (write.kind === 'update' ? changed !== count : changed > count)
        throw new Error(`logged ${count} rows, the write changed ${changed}`); // a bug, answered 500
      return { count, lastSeq: count === 0 ? undefined : Number(lastInsertRowid) };
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  changeTable(change: TableChange): void {
    this.writes++;
    try {
      applyTableChange(this.connection(), change);
      // DDL invalidates prepared statements that name the table.
      this.forget();
    } catch (error) {
      throw translateSqliteError(error);
    }
  }
}
