/**
 * The SQLite dialect: `?` placeholders, booleans as 0/1, timestamps as ISO text, json as
 * text; case-sensitive LIKE through GLOB (SQLite's LIKE ignores ASCII case).
 */
import type { DeleteStatement, SearchClause, Statement, UpdateStatement, ValueType } from '../../query/sql-tree.js';
import type { RowLog } from '../types.js';
import { LoggingSqlCompiler } from '../log-compiler.js';
import { quoteIdent, type CompiledSql, type Dialect, type SearchOptions, type SearchSql } from '../sql-compiler.js';
import { ftsMatchText, searchTableName } from './sqlite-search.js';

/** Encodes a JS value for better-sqlite3 by column type. */
export function encodeSqliteValue(value: unknown, type: ValueType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'boolean':
      return value ? 1 : 0;
    case 'json':
      return JSON.stringify(value);
    default:
      return value;
  }
}

/** Decodes a better-sqlite3 value by column type. */
export function decodeSqliteValue(value: unknown, type: ValueType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'boolean':
      return value === 1 || value === 1n || value === true;
    case 'json':
      return JSON.parse(value as string);
    default:
      return value;
  }
}

/** Converts a LIKE pattern (`%`, `_`, `\` escapes) into a GLOB pattern with the same meaning. */
function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      out += globLiteral(pattern[++i]!);
    } else if (ch === '%') {
      out += '*';
    } else if (ch === '_') {
      out += '?';
    } else {
      out += globLiteral(ch);
    }
  }
  return out;
}

function globLiteral(ch: string): string {
  return ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch;
}

/** The names a search's common table expressions and their columns go by (no user table starts with `_`). */
const SEARCH = '"_rb_search"';
const CUT = '"_rb_search_cut"';
const TIED = '"_rb_search_tied"';
const FIRST = '"_rb_search_first"';
const ENOUGH = '"_rb_search_enough"';
const MANY = '"_rb_search_many"';
const ROWID = '"_rb_rowid"';
const BM25 = '"_rb_bm25"';
/**
 * How many entries of the id index may be read per match tied at the cut, looking for the
 * first ones by id, before the tied matches are looked up in the table instead: an index entry
 * read in order costs about a twentieth of a row looked up by rowid (a page read each).
 */
const SCAN_PER_TIED = 8;

/** Full-text search on SQLite: the FTS5 table's matches (and their bm25 scores) in common table expressions. */
function searchSql(
  clause: SearchClause,
  table: string,
  qualified: string,
  bind: (value: unknown, type: ValueType) => string,
  { ranked, top, thenById }: SearchOptions,
): SearchSql {
  const fts = quoteIdent(searchTableName(table));
  const match = `${fts} WHERE ${fts} MATCH ${bind(ftsMatchText(clause.query), 'text')}`;
  // The matches are read from the FTS table once, before the statement (MATERIALIZED: bm25()
  // is only valid in a query over the FTS table itself, and is then computed once per match),
  // and their number is counted there, without reading the user table.
  const total = `(SELECT count(*) FROM ${SEARCH})`;
  if (!ranked)
    return {
      with: `${SEARCH} AS MATERIALIZED (SELECT rowid AS ${ROWID} FROM ${match})`,
      join: '',
      where: `(${qualified}.rowid IN (SELECT ${ROWID} FROM ${SEARCH}))`,
      total,
    };
  const scored = `${SEARCH} AS MATERIALIZED (SELECT rowid AS ${ROWID}, bm25(${fts}) AS ${BM25} FROM ${match})`;
  const join = ` JOIN ${SEARCH} ON ${SEARCH}.${ROWID} = ${qualified}.rowid`;
  if (top === undefined) return { with: scored, join, where: '', total };
  // Only the `top` best scores can be read: the user table's rows (a page read each) are
  // looked up for the matches scoring at least as well as the top-th.
  const cutScore = `(SELECT ${BM25} FROM ${CUT})`;
  const cut =
    `${CUT} AS MATERIALIZED (SELECT max(${BM25}) AS ${BM25} FROM ` +
    `(SELECT ${BM25} FROM ${SEARCH} ORDER BY ${BM25} LIMIT ${bind(top, 'integer')}))`;
  const atLeastCut = `${join} AND ${SEARCH}.${BM25} <= ${cutScore}`;
  if (!thenById) return { with: `${scored}, ${cut}`, join: atLeastCut, where: '', total };
  // Many matches can score the same (short texts of one length), and each tied one would be
  // looked up for its id. The first ones by id are found instead in the id index, read in
  // order for at most SCAN_PER_TIED entries per tied match: when that finds as many as the
  // page still needs after the better scores, only those are looked up; else every tied one.
  // The scan is tried when it should succeed, were the tied matches spread evenly over the ids
  // (the table's largest rowid standing for its number of rows): top / tied × rows entries.
  // Each step is a CTE, which SQLite computes only when the join's condition first reads it:
  // a search with few matches (`MANY` false) skips them all. (`+`: a scan of the few scores,
  // not an index built on them for one lookup.)
  const spread = (count: string) =>
    `${count} * ${count} * ${SCAN_PER_TIED} >= ${bind(top, 'integer')} * (SELECT max(rowid) FROM ${qualified})`;
  const many = `${MANY} AS MATERIALIZED (SELECT ${spread('count(*)')} AS "yes" FROM ${SEARCH})`;
  const tied = `${TIED} AS MATERIALIZED (SELECT ${ROWID} FROM ${SEARCH} WHERE +${BM25} = ${cutScore})`;
  const budget = `(SELECT CASE WHEN ${spread('count(*)')} THEN count(*) * ${SCAN_PER_TIED} ELSE 0 END FROM ${TIED})`;
  const first =
    `${FIRST} AS MATERIALIZED (SELECT ${ROWID} FROM (SELECT rowid AS ${ROWID}, "id" FROM ${qualified} ` +
    `ORDER BY "id" LIMIT ${budget}) WHERE ${ROWID} IN (SELECT ${ROWID} FROM ${TIED}) ` +
    `ORDER BY "id" LIMIT ${bind(top, 'integer')})`;
  const enough =
    `${ENOUGH} AS MATERIALIZED (SELECT count(*) + (SELECT count(*) FROM ${FIRST}) >= ${bind(top, 'integer')} ` +
    `AS "yes" FROM ${SEARCH} WHERE ${BM25} < ${cutScore})`;
  return {
    with: `${scored}, ${cut}, ${many}, ${tied}, ${first}, ${enough}`,
    join:
      `${atLeastCut} AND (${SEARCH}.${BM25} < ${cutScore} OR NOT (SELECT "yes" FROM ${MANY}) ` +
      `OR NOT (SELECT "yes" FROM ${ENOUGH}) OR ${SEARCH}.${ROWID} IN (SELECT ${ROWID} FROM ${FIRST}))`,
    where: '',
    total,
  };
}

const sqliteDialect: Dialect = {
  placeholder: () => '?',
  encode: encodeSqliteValue,
  boolean: (value) => (value ? '1' : '0'),
  nullSafeNotEqual: (left, right) => `(${left} IS NOT ${right})`,
  like: (expr, pattern, { caseInsensitive }) =>
    caseInsensitive ? `(${expr} LIKE ${pattern} ESCAPE '\\')` : `(${expr} GLOB ${pattern})`,
  likePattern: (pattern, { caseInsensitive }) => (caseInsensitive ? pattern : likeToGlob(pattern)),
  orderTerm: (column, _type, { descending }) => `${column} ${descending ? 'DESC' : 'ASC'}`,
  limitOffset: (limit, offset) => {
    if (limit === undefined && offset === undefined) return '';
    return ` LIMIT ${limit ?? '-1'}${offset === undefined ? '' : ` OFFSET ${offset}`}`;
  },
  forUpdate: () => '',
  search: searchSql,
  // bm25() is lower for better matches; the rank is higher for them.
  searchRank: () => `(-${SEARCH}.${BM25})`,
  jsonText: (expr, type) => {
    switch (type) {
      case 'boolean':
        return `(CASE WHEN ${expr} IS NULL THEN 'null' WHEN ${expr} THEN 'true' ELSE 'false' END)`;
      case 'json':
        // Stored as JSON text already (encodeSqliteValue).
        return `coalesce(${expr}, 'null')`;
      default:
        // Text quoted and escaped as JSON, numbers as numbers, NULL as null.
        return `json_quote(${expr})`;
    }
  },
};

const compiler = new LoggingSqlCompiler(sqliteDialect);

/** Compiles a statement to SQLite SQL text and parameters. */
export function compileStatement(statement: Statement): CompiledSql {
  return compiler.compile(statement);
}

/** The event-log entries of the rows `write` is about to change (LoggingSqlCompiler.compileLogBefore). */
export function compileLogBefore(write: UpdateStatement | DeleteStatement, log: RowLog): CompiledSql {
  return compiler.compileLogBefore(write, log);
}
