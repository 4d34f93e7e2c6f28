/**
 * Full-text search on SQLite (contract §18): an FTS5 table with external content (the user
 * table itself, by rowid), kept in step by three triggers, so every write path (row service,
 * bulk, import, any later UPDATE ... WHERE) updates it inside the same transaction.
 *
 * The tokenizer is `unicode61 remove_diacritics 2 categories 'L* Nd Nl'`: tokens are runs of
 * letters and digits, case-folded, Latin accents removed. PostgreSQL folds the same way (see
 * `postgres/pg-search.ts`); test/scenarios/data-rows-search-properties.test.ts holds them to
 * the same answers. The FTS table is named `_rb_search_<table>` (user tables never start with
 * `_`), dropped with its table and rebuilt whenever its columns change or the table is rebuilt.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SearchQuery } from '../../query/search-parser.js';
import type { TableDefinition } from '../../schema/definition.js';
import { quoteIdent } from '../sql-compiler.js';

/** The FTS5 table of a user table. */
export function searchTableName(table: string): string {
  return `_rb_search_${table}`;
}

const TOKENIZE = `unicode61 remove_diacritics 2 categories 'L* Nd Nl'`;

/** Drops the FTS table (its triggers go with it, or with the user table). */
export function dropSearchIndex(db: BetterSqlite3.Database, table: string): void {
  const fts = quoteIdent(searchTableName(table));
  for (const suffix of ['ai', 'ad', 'au'])
    db.exec(`DROP TRIGGER IF EXISTS ${quoteIdent(`${searchTableName(table)}_${suffix}`)}`);
  db.exec(`DROP TABLE IF EXISTS ${fts}`);
}

/** Creates the FTS table and its triggers for `table.search`, and indexes the rows already there. */
export function createSearchIndex(db: BetterSqlite3.Database, table: TableDefinition): void {
  const columns = table.search ?? [];
  if (columns.length === 0) return;
  const name = searchTableName(table.name);
  const fts = quoteIdent(name);
  const user = quoteIdent(table.name);
  const list = columns.map(quoteIdent).join(', ');
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${quoteIdent(c)}`).join(', ');
  // The tokenizer string is a constant of ours; column and table names are checked and quoted.
  db.exec(
    `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content=${user}, content_rowid='rowid', ` +
      `tokenize="${TOKENIZE}")`,
  );
  db.exec(
    `CREATE TRIGGER ${quoteIdent(`${name}_ai`)} AFTER INSERT ON ${user} BEGIN ` +
      `INSERT INTO ${fts}(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
  );
  db.exec(
    `CREATE TRIGGER ${quoteIdent(`${name}_ad`)} AFTER DELETE ON ${user} BEGIN ` +
      `INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')}); END`,
  );
  // Only when a searched column changes: writes to other columns leave the index alone.
  db.exec(
    `CREATE TRIGGER ${quoteIdent(`${name}_au`)} AFTER UPDATE OF ${list} ON ${user} BEGIN ` +
      `INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')}); ` +
      `INSERT INTO ${fts}(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
  );
  db.exec(`INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`);
}

/**
 * Brings the FTS table in line with a table change, inside the caller's transaction. `rebuilt`:
 * the table was copied into a new one (rowids changed, triggers gone), so the index is remade.
 */
export function syncSearchIndex(
  db: BetterSqlite3.Database,
  before: TableDefinition | null,
  after: TableDefinition | null,
  rebuilt: boolean,
): void {
  const previous = JSON.stringify(before?.search ?? []);
  const next = JSON.stringify(after?.search ?? []);
  if (!rebuilt && previous === next && after) return;
  if (before) dropSearchIndex(db, before.name);
  if (after) createSearchIndex(db, after);
}

/**
 * The FTS5 query of a parsed search, bound as one value: every phrase in double quotes (its
 * tokens hold letters, digits and marks only, never a quote), groups ORed, groups ANDed, the
 * excluded phrases after NOT. FTS5 tokenizes each quoted phrase as it tokenized the rows.
 */
export function ftsMatchText(query: SearchQuery): string {
  const phrase = (tokens: readonly string[]) => `"${tokens.join(' ')}"`;
  const all = query.all.map((group) => `(${group.map(phrase).join(' OR ')})`).join(' AND ');
  return query.none.length === 0 ? all : `(${all}) NOT (${query.none.map(phrase).join(' OR ')})`;
}
