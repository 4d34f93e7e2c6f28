/**
 * Insert SQL text kept by shape, for the engines' stores: a bulk write runs the same few
 * statement shapes for every chunk of rows and of event-log entries, and compiling them again
 * (a placeholder and an encoded value per cell) was a tenth of its CPU. Only the text is kept;
 * the parameters are the statement's values, encoded as the compiler binds them.
 */
import type { ColumnRef, InsertStatement } from '../query/sql-tree.js';

/** Whether the caller knows no value of an insert is null (its SQL text then depends on the row count only). */
export interface InsertShapeOptions {
  readonly nullFree: boolean;
}

/** Shared option objects: inserts run per write request, and these allocate nothing per call. */
export const NULL_FREE: InsertShapeOptions = Object.freeze({ nullFree: true });
export const MAY_HOLD_NULLS: InsertShapeOptions = Object.freeze({ nullFree: false });

/**
 * What an insert's SQL text depends on: its table, columns, returned columns, conflict clause,
 * and which values are null (compiled as the literal NULL); every other value is a parameter.
 * With `nullFree` the caller knows no value is null, and the row count stands for the null
 * marks. Undefined for an upsert with a condition, which binds values of its own.
 */
export function insertShape(statement: InsertStatement, { nullFree }: InsertShapeOptions): string | undefined {
  const upsert = statement.onConflictUpdate;
  if (upsert?.where) return undefined;
  const returning = statement.returning ? columnNames(statement.returning) : '';
  let key =
    `${statement.table}\u0000${statement.onConflictDoNothing === true}\u0001` +
    `${columnNames(statement.columns)}\u0001${returning}\u0001`;
  if (upsert) key += `${upsert.target}\u0000${columnNames(upsert.update)}\u0001`;
  if (nullFree) return `${key}${statement.rows.length}`;
  for (const values of statement.rows) {
    key += ',';
    for (const value of values) key += value === null || value === undefined ? '0' : '1';
  }
  return key;
}

/**
 * Column lists' names and types joined, by list: compiled tables and the event log pass the same
 * arrays on every write. The type is part of it: PostgreSQL's placeholders carry casts, and
 * another process may change a column's type.
 */
const namesOfColumns = new WeakMap<readonly ColumnRef[], string>();

function columnNames(columns: readonly ColumnRef[]): string {
  let names = namesOfColumns.get(columns);
  if (names === undefined) {
    names = columns.map((column) => `${column.name}\u0002${column.type}`).join('\u0000');
    namesOfColumns.set(columns, names);
  }
  return names;
}

/** A compiled insert: its text, its parameters, and the number of the text. */
export interface KeptInsert {
  readonly sql: string;
  readonly params: unknown[];
  /**
   * Names this text for the life of the process: a number is never given to another text (and
   * a text compiled again after its entry was dropped gets a new one). PostgreSQL's store names
   * its prepared statements by it. Absent for a text too long to keep.
   */
  readonly textNumber?: number;
}

interface KeptText {
  readonly sql: string;
  /** Undefined when the text is not kept (too long). */
  readonly number: number | undefined;
}

/**
 * The last number given to a text, across every InsertTexts of the process: prepared
 * statements live on connections that every schema's store shares, so a number must name one
 * text in all of them. Only ever incremented.
 */
let textNumbers = 0;

/** How many texts an InsertTexts keeps, and how many characters of text in all. */
export interface InsertTextLimits {
  readonly entries: number;
  /** A multi-row text is long (about 70 KB for 1,000 rows of 8 columns); shorter ones are the common case. */
  readonly chars: number;
}

/**
 * Insert texts by shape, within `limits` (the oldest goes first). `compile` makes the text of
 * a shape not seen yet; the parameters are the non-null values in row order, each passed
 * through `encode` with its column's type (what the compilers bind, in their order).
 */
export class InsertTexts {
  private readonly texts = new Map<string, KeptText>();
  private chars = 0;

  constructor(
    private readonly limits: InsertTextLimits,
    private readonly compile: (statement: InsertStatement) => string,
    private readonly encode: (value: unknown, type: ColumnRef['type']) => unknown,
  ) {}

  /**
   * The text and parameters of `statement`, and the number of its kept text; undefined when its
   * shape has no fixed text (insertShape).
   */
  get(statement: InsertStatement, options: InsertShapeOptions = MAY_HOLD_NULLS): KeptInsert | undefined {
    const shape = insertShape(statement, options);
    if (shape === undefined) return undefined;
    let kept = this.texts.get(shape);
    if (kept === undefined) {
      const sql = this.compile(statement);
      kept = this.keep(shape, sql);
    }
    const params: unknown[] = [];
    const { columns } = statement;
    for (const values of statement.rows) {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (value !== null && value !== undefined) params.push(this.encode(value, columns[i]!.type));
      }
    }
    return kept.number === undefined ? { sql: kept.sql, params } : { sql: kept.sql, params, textNumber: kept.number };
  }

  /** Forgets every text (the connection's statements are gone, or tables changed). */
  clear(): void {
    this.texts.clear();
    this.chars = 0;
  }

  private keep(shape: string, sql: string): KeptText {
    if (sql.length > this.limits.chars) return { sql, number: undefined };
    const kept = { sql, number: ++textNumbers };
    // Drop the oldest entries; Map keeps insertion order.
    while (this.texts.size >= this.limits.entries || this.chars + kept.sql.length > this.limits.chars) {
      const [oldest, text] = this.texts.entries().next().value!;
      this.texts.delete(oldest);
      this.chars -= text.sql.length;
    }
    this.texts.set(shape, kept);
    this.chars += kept.sql.length;
    return kept;
  }
}
