/**
 * The SQLite dialect: `?` placeholders, booleans as 0/1, timestamps as ISO text, json as
 * text; case-sensitive LIKE through GLOB (SQLite's LIKE ignores ASCII case).
 */
import type { DeleteStatement, Statement, UpdateStatement, ValueType } from '../../query/sql-tree.js';
import type { RowLog } from '../types.js';
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
  search: (clause, table, qualified, bind, ranked) => {
    const fts = quoteIdent(searchTableName(table));
    const match = bind(ftsMatchText(clause.query), 'text');
    // Ranked: the FTS table's scores joined once (bm25 reads each term's statistics once per
    // query); unranked (counts, other sorts): a rowid set, which needs no scores.
    return ranked
      ? {
          join:
            ` JOIN (SELECT rowid AS "_rb_rowid", bm25(${fts}) AS "_rb_bm25" FROM ${fts} WHERE ${fts} MATCH ${match})` +
            ` AS "_rb_search" ON "_rb_search"."_rb_rowid" = ${qualified}.rowid`,
          where: '',
        }
      : { join: '', where: `(${qualified}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${match}))` };
  },
  // bm25() is lower for better matches; the rank is higher for them.
  searchRank: () => '(-"_rb_search"."_rb_bm25")',
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

const compiler = new SqlCompiler(sqliteDialect);

/** Compiles a statement to SQLite SQL text and parameters. */
export function compileStatement(statement: Statement): CompiledSql {
  return compiler.compile(statement);
}

/** The event-log entries of the rows `write` is about to change (SqlCompiler.compileLogBefore). */
export function compileLogBefore(write: UpdateStatement | DeleteStatement, log: RowLog): CompiledSql {
  return compiler.compileLogBefore(write, log);
}
