/**
 * DDL for user tables on SQLite: STRICT tables, unique constraints as unique indexes (so they
 * change without a rebuild), and the 12-step rebuild for changes ALTER TABLE cannot make.
 * What the table holds is decided by the engine-neutral plan (`../ddl-plan.ts`); this file
 * prints it and chooses how to get there (ALTER or rebuild).
 * Defaults are applied by the row service, not by DDL, so both engines fill them alike.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { physicalColumns, type TableDefinition } from '../../schema/definition.js';
import { diffTable, sameReference, type TableDiff } from '../ddl-change.js';
import { planDeclaredColumn, planTableDdl } from '../ddl-plan.js';
import { columnSql, createIndexSql, createTableSql, type DdlDialect } from '../ddl-print.js';
import { quoteIdent } from '../sql-compiler.js';
import type { TableChange } from '../types.js';
import { encodeSqliteValue } from './sqlite-compiler.js';
import { syncSearchIndex } from './sqlite-search.js';

const SQLITE_TYPES = {
  text: 'TEXT',
  integer: 'INTEGER',
  number: 'REAL',
  boolean: 'INTEGER',
  timestamp: 'TEXT',
  json: 'TEXT',
} as const;

/** SQLite's spelling of the plan: no schemas, booleans as 0/1, foreign keys inline. */
const SQLITE_DDL: DdlDialect = {
  columnType: (type) => SQLITE_TYPES[type],
  literal: (value) => (typeof value === 'boolean' ? (value ? '1' : '0') : String(value)),
  qualify: quoteIdent,
  inlineForeignKeys: true,
};

function createSql(table: TableDefinition, name = table.name): string {
  return createTableSql(SQLITE_DDL, name, planTableDdl(table).columns, ' STRICT');
}

/** The indexes a table should have, by name → CREATE statement. */
function wantedIndexes(table: TableDefinition): Map<string, string> {
  return new Map(
    planTableDdl(table).indexes.map((index) => [index.name, createIndexSql(SQLITE_DDL, table.name, index)]),
  );
}

function existingIndexes(db: BetterSqlite3.Database, table: string): Set<string> {
  const rows = db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
    .pluck()
    .all(table) as string[];
  return new Set(rows);
}

function syncIndexes(db: BetterSqlite3.Database, table: TableDefinition): void {
  const wanted = wantedIndexes(table);
  const existing = existingIndexes(db, table.name);
  for (const name of existing) if (!wanted.has(name)) db.exec(`DROP INDEX ${quoteIdent(name)}`);
  for (const [name, create] of wanted) if (!existing.has(name)) db.exec(create);
}

/** True when the physical columns (not indexes or rules) differ in a way only a rebuild can make. */
function needsRebuild(diff: TableDiff): boolean {
  if (diff.authAdded || diff.authDropped || diff.dropped.length > 0) return true;
  return diff.steps.some((step) => {
    // ADD COLUMN cannot add NOT NULL without a DDL default, nor a foreign key with one.
    if (step.kind === 'added') return step.column.required || step.column.references !== undefined;
    if (step.kind === 'reset') return true;
    const { previous, column } = step;
    return previous.type !== column.type || previous.required !== column.required || !sameReference(previous, column);
  });
}

/**
 * Applies a table change inside the caller's transaction (foreign keys already off).
 * Columns added to existing rows get their declared default.
 */
export function applyTableChange(db: BetterSqlite3.Database, change: TableChange): void {
  const { before, after } = change;
  if (!after) {
    if (before) {
      syncSearchIndex(db, before, null, false);
      db.exec(`DROP TABLE ${quoteIdent(before.name)}`);
    }
    return;
  }
  if (!before) {
    db.exec(createSql(after));
    syncIndexes(db, after);
    syncSearchIndex(db, null, after, false);
    return;
  }
  const diff = diffTable(before, after, change.resetColumns);
  const rebuilt = needsRebuild(diff);
  if (rebuilt) {
    rebuildTable(db, change, before, after);
  } else {
    for (const { column } of diff.steps.filter((step) => step.kind === 'added')) {
      db.exec(
        `ALTER TABLE ${quoteIdent(after.name)} ADD COLUMN ` +
          `${columnSql(SQLITE_DDL, planDeclaredColumn(after.name, column))}`,
      );
      if (column.default !== undefined && column.default !== null) {
        db.prepare(`UPDATE ${quoteIdent(after.name)} SET ${quoteIdent(column.name)} = ?`).run(
          encodeSqliteValue(column.default, column.type) as never,
        );
      }
    }
  }
  syncIndexes(db, after);
  syncSearchIndex(db, before, after, rebuilt);
}

function rebuildTable(
  db: BetterSqlite3.Database,
  change: TableChange,
  before: TableDefinition,
  after: TableDefinition,
): void {
  const temp = `_rb_rebuild_${after.name}`;
  db.exec(createSql(after, temp));
  const kept = new Set(physicalColumns(before).map((c) => c.name));
  const reset = new Set(change.resetColumns);
  const targets: string[] = [];
  const sources: string[] = [];
  const params: unknown[] = [];
  for (const column of physicalColumns(after)) {
    const fallback = column.definition?.default;
    const carried = kept.has(column.name) && !reset.has(column.name);
    if (carried) {
      // Only a required column needs its default for old NULLs; elsewhere NULL is a value to keep.
      const fill = column.definition?.required === true && fallback !== undefined && fallback !== null;
      targets.push(quoteIdent(column.name));
      sources.push(fill ? `COALESCE(${quoteIdent(column.name)}, ?)` : quoteIdent(column.name));
      if (fill) params.push(encodeSqliteValue(fallback, column.type));
    } else if (column.origin === 'auth') {
      // auth columns of a table turned into an auth table: NOT NULL fails below unless empty
    } else {
      targets.push(quoteIdent(column.name));
      sources.push(fallback === undefined || fallback === null ? 'NULL' : '?');
      if (fallback !== undefined && fallback !== null) params.push(encodeSqliteValue(fallback, column.type));
    }
  }
  db.prepare(
    `INSERT INTO ${quoteIdent(temp)} (${targets.join(', ')}) SELECT ` +
      `${sources.join(', ')} FROM ${quoteIdent(before.name)}`,
  ).run(...(params as never[]));
  db.exec(`DROP TABLE ${quoteIdent(before.name)}`);
  db.exec(`ALTER TABLE ${quoteIdent(temp)} RENAME TO ${quoteIdent(after.name)}`);
}
