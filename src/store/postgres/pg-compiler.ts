/**
 * The PostgreSQL dialect: `$n` placeholders (cast where the value's type cannot be inferred
 * from a column), native booleans, `IS DISTINCT FROM`, LIKE/ILIKE under the "C" collation
 * (byte order and ASCII-only case folding, as on SQLite), NULLs sorted first as on SQLite,
 * `FOR UPDATE [SKIP LOCKED]`, and table names qualified with the database's schema.
 * Also the value codecs: what node-postgres binds for a column type, and what it returns.
 */
import { containsNul } from '../../lib/nul-character.js';
import type { DeleteStatement, Statement, UpdateStatement, ValueType } from '../../query/sql-tree.js';
import type { RowLog } from '../types.js';
import { LoggingSqlCompiler } from '../log-compiler.js';
import { quoteIdent, type CompiledSql, type Dialect } from '../sql-compiler.js';
import { SEARCH_COLUMN, tsquerySql } from './pg-search.js';
import { StoreError } from '../types.js';
import { InsertTexts } from '../insert-texts.js';
import { withoutNulComparisons } from './pg-nul-values.js';

/** The native column type of each value type. */
export const PG_TYPES: Readonly<Record<ValueType, string>> = Object.freeze({
  text: 'text COLLATE "C"',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
});

/*
 * Casts that make a bound value's type explicit. Text and timestamps stay uncast on purpose:
 * PostgreSQL then infers them from the column they meet (internal tables keep ISO timestamps
 * as text, user tables as timestamptz), and two bare values compare as text, which orders
 * canonical ISO timestamps correctly.
 */
const CASTS: Readonly<Record<ValueType, string>> = Object.freeze({
  text: '',
  integer: '::bigint',
  number: '::double precision',
  boolean: '::boolean',
  timestamp: '',
  json: '::jsonb',
});

/**
 * Encodes a JS value for node-postgres by column type. Throws StoreError('check') for text
 * holding U+0000, which PostgreSQL text cannot store.
 */
export function encodePgValue(value: unknown, type: ValueType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'json': {
      // jsonb refuses an escaped NUL as well; say so before the driver does, with a clear kind.
      if (containsNul(value)) throw nulError();
      return JSON.stringify(value);
    }
    case 'boolean':
      return Boolean(value);
    case 'timestamp':
      return typeof value === 'string' ? toPgTimestamp(value) : value;
    case 'text':
      if (typeof value === 'string' && value.includes('\u0000')) throw nulError();
      return value;
    default:
      return value;
  }
}

const ISO_YEAR = /^([+-]\d{6}|\d{4})(-.*)$/;

/**
 * ISO 8601 numbers years astronomically (0000 is 1 BC); PostgreSQL reads years only as AD/BC
 * and has no year 0. Years up to 0 are rewritten as BC; others pass through unchanged.
 */
function toPgTimestamp(iso: string): string {
  if (iso.includes('\u0000')) throw nulError();
  const match = ISO_YEAR.exec(iso);
  if (!match) return iso;
  const year = Number(match[1]);
  if (year > 0) return iso;
  return `${String(1 - year).padStart(4, '0')}${match[2]} BC`;
}

function nulError(): StoreError {
  return new StoreError('check', 'text cannot contain the character U+0000');
}

/** Decodes a value node-postgres returned (after `pg-types.ts` parsers) by column type. */
export function decodePgValue(value: unknown, type: ValueType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return value === true || value === 't' || value === 'true';
    case 'timestamp':
      return value instanceof Date ? value.toISOString() : value;
    default:
      return value;
  }
}

/** The dialect for one schema: every table name is qualified with it. */
function buildPgDialect(schema: string): Dialect {
  const qualifier = `${quoteIdent(schema)}.`;
  return {
    placeholder: (index, type) => `$${index}${CASTS[type]}`,
    encode: encodePgValue,
    boolean: (value) => (value ? 'TRUE' : 'FALSE'),
    nullSafeNotEqual: (left, right) => `(${left} IS DISTINCT FROM ${right})`,
    // The "C" collation makes ILIKE fold ASCII letters only, exactly like SQLite's LIKE.
    like: (expr, pattern, { caseInsensitive }) =>
      `(${expr}::text COLLATE "C" ${caseInsensitive ? 'ILIKE' : 'LIKE'} ${pattern} ESCAPE '\\')`,
    likePattern: (pattern) => pattern,
    // SQLite sorts NULL before every value; PostgreSQL after, unless told. A column without
    // nulls needs no NULLS clause, and without it a plain btree index serves the order (keyset paging).
    orderTerm: (column, type, { descending, notNull }) =>
      `${column}${type === 'text' ? ' COLLATE "C"' : ''} ` +
      `${descending ? 'DESC' : 'ASC'}${notNull ? '' : descending ? ' NULLS LAST' : ' NULLS FIRST'}`,
    limitOffset: (limit, offset) =>
      `${limit === undefined ? '' : ` LIMIT ${limit}`}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
    forUpdate: ({ skipLocked }) => (skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE'),
    table: (name) => `${qualifier}${quoteIdent(name)}`,
    // A row an upsert inserted has no deleting or locking transaction yet; the row it updated has this one.
    upsertInsertedFlag: '(xmax = 0)',
    search: (clause, _table, qualified, bind) => ({
      with: '',
      join: '',
      where: `(${qualified}.${quoteIdent(SEARCH_COLUMN)} @@ ${tsquerySql(clause.query, bind)})`,
    }),
    // ts_rank is a real: as float8 it prints every digit, so a cursor's rank compares equal again.
    searchRank: (clause, qualified, bind) =>
      `ts_rank(${qualified}.${quoteIdent(SEARCH_COLUMN)}, ${tsquerySql(clause.query, bind)})::float8`,
    jsonText: (expr, type) =>
      type === 'timestamp'
        ? // infinity (only by editing the database) is read back as its text, as pg-types.ts leaves it.
          `(CASE WHEN ${expr} IS NULL THEN 'null' WHEN NOT isfinite(${expr}) THEN '"' || ${expr}::text || '"' ` +
          `ELSE '"' || ${isoTimestamp(expr)} || '"' END)`
        : `coalesce(to_json(${expr})::text, 'null')`,
  };
}

/**
 * SQL for a timestamptz as `Date.prototype.toISOString` writes it (what pg-types.ts reads it
 * as): UTC, milliseconds, `Z`; years 0 to 9999 in four digits, others signed in six
 * (astronomical numbering: 1 BC is year 0, PostgreSQL's `extract` calls it -1).
 */
function isoTimestamp(expr: string): string {
  const utc = `(${expr} AT TIME ZONE 'UTC')`;
  const extracted = `extract(year FROM ${utc})`;
  const year = `(CASE WHEN ${extracted} < 0 THEN ${extracted} + 1 ELSE ${extracted} END)::bigint`;
  return (
    `(CASE WHEN ${year} BETWEEN 0 AND 9999 THEN lpad(${year}::text, 4, '0') ` +
    `ELSE (CASE WHEN ${year} < 0 THEN '-' ELSE '+' END) || lpad(abs(${year})::text, 6, '0') END` +
    ` || to_char(${utc}, '-MM-DD"T"HH24:MI:SS.MS"Z"'))`
  );
}

/**
 * Insert texts kept per schema: a bulk's multi-row statements are long (about 70 KB for an upsert
 * of 1,000 rows of 8 columns), so the bound is in characters as well; a few shapes are the common case.
 */
const INSERT_TEXT_LIMITS = Object.freeze({ entries: 64, chars: 1_000_000 });

/** Compiles statements for the tables of one schema. */
export class PgCompiler {
  private readonly compiler: LoggingSqlCompiler;
  /** Insert texts by shape (insert-texts.ts): a bulk and its event-log entries compile the same few every time. */
  private readonly insertTexts: InsertTexts;

  constructor(readonly schema: string) {
    this.compiler = new LoggingSqlCompiler(buildPgDialect(schema));
    this.insertTexts = new InsertTexts(
      INSERT_TEXT_LIMITS,
      (statement) => this.compiler.compile(statement).sql,
      encodePgValue,
    );
  }

  /**
   * Compiles one statement, with the number of its kept text when it is an insert of a kept
   * shape (insert-texts.ts); throws StoreError('check') for values PostgreSQL cannot hold.
   */
  compile(statement: Statement): CompiledSql & { readonly textNumber?: number } {
    if (statement.kind === 'insert') {
      const compiled = this.insertTexts.get(statement);
      if (compiled) return compiled;
    }
    return this.compiler.compile(withoutNulComparisons(statement));
  }

  /** One statement that runs `write` and logs the rows it changed (LoggingSqlCompiler.compileLoggingWrite). */
  compileLoggingWrite(write: UpdateStatement | DeleteStatement, log: RowLog): CompiledSql {
    return this.compiler.compileLoggingWrite(withoutNulComparisons(write) as UpdateStatement | DeleteStatement, log);
  }

  /** The schema-qualified, quoted name of a table. */
  table(name: string): string {
    return `${quoteIdent(this.schema)}.${quoteIdent(name)}`;
  }
}
