/**
 * The SQLite dialect: `?` placeholders, booleans as 0/1, timestamps as ISO text, json as
 * text; case-sensitive LIKE through GLOB (SQLite's LIKE ignores ASCII case).
 */
import type { Statement, ValueType } from '../../query/sql-tree.js';
import { quoteIdent, SqlCompiler, type CompiledSql, type Dialect } from '../sql-compiler.js';
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
const ROWID = '"_rb_rowid"';
const BM25 = '"_rb_bm25"';

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
  search: (clause, table, qualified, bind, { ranked, top }) => {
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
    // looked up for the matches scoring at least as well as the top-th, ties included.
    const cut =
      `${CUT} AS (SELECT max(${BM25}) AS ${BM25} FROM ` +
      `(SELECT ${BM25} FROM ${SEARCH} ORDER BY ${BM25} LIMIT ${bind(top, 'integer')}))`;
    return {
      with: `${scored}, ${cut}`,
      join: `${join} AND ${SEARCH}.${BM25} <= (SELECT ${BM25} FROM ${CUT})`,
      where: '',
      total,
    };
  },
  // bm25() is lower for better matches; the rank is higher for them.
  searchRank: () => `(-${SEARCH}.${BM25})`,
};

const compiler = new SqlCompiler(sqliteDialect);

/** Compiles a statement to SQLite SQL text and parameters. */
export function compileStatement(statement: Statement): CompiledSql {
  return compiler.compile(statement);
}
