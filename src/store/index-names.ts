/** Deterministic, length-safe names for the indexes the engines create for a table. */
import { createHash } from 'node:crypto';
import type { TableDefinition } from '../schema/definition.js';

const MAX_IDENTIFIER = 63; // PostgreSQL's limit; SQLite has none, but one rule keeps both engines alike.

function fit(name: string): string {
  if (name.length <= MAX_IDENTIFIER) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_IDENTIFIER - 11)}_${digest}`;
}

/** Name of the unique index on one column. */
export function uniqueIndexName(table: string, column: string): string {
  return fit(`${table}__uq__${column}`);
}

/** Name of a declared (non-unique) index over columns. */
export function indexName(table: string, columns: readonly string[]): string {
  return fit(`${table}__ix__${columns.join('__')}`);
}

/** Name of the full-text search index of a table (`_rb_`: user names start with a letter, so none can clash). */
export function searchIndexName(table: string): string {
  return fit(`_rb_search_${table}`);
}

/** Name of the foreign-key constraint of one column (engines that name constraints). */
export function foreignKeyName(table: string, column: string): string {
  return fit(`${table}__fk__${column}`);
}

/** One index a table should have. */
export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

/**
 * Every index a table should have, the same on every engine: unique columns (and an auth
 * table's email), `created_at, id` (the default list order stays an index scan on large
 * tables), the declared indexes, and each foreign-key column (cascades would scan otherwise).
 */
export function indexesOf(table: TableDefinition): IndexSpec[] {
  const specs = new Map<string, IndexSpec>();
  const uniques = table.columns.filter((c) => c.unique).map((c) => c.name);
  if (table.auth_table) uniques.unshift('email');
  for (const column of uniques) {
    const name = uniqueIndexName(table.name, column);
    specs.set(name, { name, columns: [column], unique: true });
  }
  const plain = [
    ['created_at', 'id'],
    ...table.indexes,
    ...table.columns.filter((c) => c.references).map((c) => [c.name]),
  ];
  for (const columns of plain) {
    const name = indexName(table.name, columns);
    specs.set(name, { name, columns, unique: false });
  }
  return [...specs.values()];
}
