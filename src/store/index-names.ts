/** Deterministic, length-safe names for the indexes the engines create for a table. */
import { createHash } from 'node:crypto';

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

/** Name of the foreign-key constraint of one column (engines that name constraints). */
export function foreignKeyName(table: string, column: string): string {
  return fit(`${table}__fk__${column}`);
}
