/**
 * Full-text search on PostgreSQL (contract §18): a stored generated `tsvector` column
 * `_rb_search` with a GIN index, so every write path keeps it in step inside its transaction.
 *
 * Text is folded to what SQLite's FTS5 tokenizer (`unicode61 remove_diacritics 2 categories
 * 'L* Nd Nl'`, see `sqlite/sqlite-search.ts`) makes of it, with immutable built-ins only (no
 * extension needed), under the collation `C.utf8`: text columns are `COLLATE "C"`, whose
 * character classes know ASCII only, and the database's own locale may be anything. Lower-case;
 * combining marks written as such dropped (FTS5's diacritics) or made separators (the others);
 * then the marks of precomposed Latin letters removed (NFD, strip, NFC: other scripts keep theirs);
 * the two case folds FTS5 makes that lower() does not (µ → μ, ς → σ); every run of characters
 * that are not letters or digits becomes one space. The `simple` configuration then splits on
 * the spaces without stemming. Searched columns are joined with a filler token that the fold can
 * never produce and that is then deleted, so a phrase never spans two columns (as in FTS5, where
 * a phrase matches within one column).
 */
import { quoteIdent } from '../sql-compiler.js';
import type { SearchQuery } from '../../query/search-parser.js';
import type { ValueType } from '../../query/sql-tree.js';
import type { TableDefinition } from '../../schema/definition.js';
import { searchIndexName } from '../index-names.js';

/** The generated column that holds a row's search vector. */
export const SEARCH_COLUMN = '_rb_search';

const MARKS = String.raw`[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]`;
/**
 * The combining marks FTS5's unicode61 drops where they stand in the text (its "diacritics");
 * it treats every other combining mark written as such as a separator.
 */
const DIACRITICS = String.raw`[\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331]`;
const LATIN = String.raw`[\u0041-\u005a\u0061-\u007a\u00c0-\u024f\u1e00-\u1eff]`;
/** Between columns: an e-mail token, which the fold cannot produce (it turns @ and . into spaces). */
const FILLER = 'rb@rb.rb';

/** SQL that folds the text expression `expr` (already SQL) as FTS5's tokenizer does. */
export function foldSql(expr: string): string {
  const lowered = `lower((${expr}) COLLATE "C.utf8")`;
  const unmarked = `regexp_replace(regexp_replace(${lowered}, '${DIACRITICS}', '', 'g'), '${MARKS}', ' ', 'g')`;
  const stripped = `regexp_replace(normalize(${unmarked}, NFD), '(${LATIN})${MARKS}+', '\\1', 'g')`;
  return `regexp_replace(translate(normalize(${stripped}, NFC), 'µς', 'μσ'), '[^[:alnum:]]+', ' ', 'g')`;
}

/** The generated expression of the search vector of `columns`. */
export function searchVectorSql(columns: readonly string[]): string {
  const text = columns.map((c) => foldSql(`coalesce(${quoteIdent(c)}, '')`)).join(` || ' ${FILLER} ' || `);
  return `ts_delete(to_tsvector('simple'::regconfig, ${text}), '${FILLER}'::text)`;
}

/** True when the searched columns differ between the two definitions. */
export function searchChanged(before: TableDefinition | null, after: TableDefinition | null): boolean {
  return JSON.stringify(before?.search ?? []) !== JSON.stringify(after?.search ?? []);
}

/** `ADD COLUMN` of the generated search vector (computes it for every row already there). */
export function addSearchColumnSql(table: TableDefinition): string {
  const vector = searchVectorSql(table.search ?? []);
  return `ADD COLUMN ${quoteIdent(SEARCH_COLUMN)} tsvector GENERATED ALWAYS AS (${vector}) STORED`;
}

/** `CREATE INDEX ... USING gin` on the search vector of `qualified` (the schema-qualified table). */
export function createSearchIndexSql(schema: string, table: string): string {
  return (
    `CREATE INDEX ${quoteIdent(searchIndexName(table))} ON ${quoteIdent(schema)}.${quoteIdent(table)} ` +
    `USING gin (${quoteIdent(SEARCH_COLUMN)})`
  );
}

/**
 * The tsquery of a parsed search, built from bound values: each phrase's tokens are folded as
 * the rows were and become a phrase query (`<->`); groups ORed (`||`), groups ANDed (`&&`),
 * excluded phrases negated (`!!`). No query text reaches `to_tsquery`.
 */
export function tsquerySql(query: SearchQuery, bind: (value: unknown, type: ValueType) => string): string {
  const phrase = (tokens: readonly string[]) =>
    `phraseto_tsquery('simple'::regconfig, ${foldSql(bind(tokens.join(' '), 'text'))})`;
  const group = (phrases: readonly (readonly string[])[]) => `(${phrases.map(phrase).join(' || ')})`;
  const all = query.all.map(group).join(' && ');
  return query.none.length === 0 ? `(${all})` : `(${all} && !!${group(query.none)})`;
}
