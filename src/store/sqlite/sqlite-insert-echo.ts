/**
 * A benchmark-driven shortcut for single-row inserts: answer INSERT ... RETURNING from the bound
 * values instead of reading the row back, when SQLite provably stores them unchanged.
 * Held to a real read-back by test/contract/sqlite-insert-echo.test.ts.
 */
import type { ColumnRef, InsertStatement } from '../../query/sql-tree.js';
import type { Row } from '../types.js';
import { decodeSqliteValue, encodeSqliteValue } from './sqlite-compiler.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when SQLite keeps `value` unchanged in a STRICT column of this type (no conversion). */
function isStoredAsIs(value: unknown, type: ColumnRef['type']): boolean {
  if (value === null) return true;
  switch (type) {
    case 'integer':
    case 'boolean':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      // A lone surrogate is stored as U+FFFD, so such a string would not read back the same.
      return typeof value === 'string' && !LONE_SURROGATE.test(value);
  }
}

/**
 * What a single-row INSERT ... RETURNING would read back, built from the bound values:
 * a STRICT table stores exactly what is bound (no triggers or generated columns here), so
 * reading the row back only costs time (about a fifth of a bulk insert). Undefined, and
 * RETURNING is used, when a returned column is not inserted (a DDL default fills it), a
 * conflict may skip the row, or the table is not STRICT.
 */
export function echoedInsertRow(statement: InsertStatement, isStrict: (table: string) => boolean): Row | undefined {
  if (!statement.returning || statement.onConflictDoNothing || statement.rows.length !== 1) return undefined;
  const values = statement.rows[0]!;
  const row: Row = {};
  for (const column of statement.returning) {
    const index = statement.columns.findIndex((c) => c.name === column.name);
    if (index === -1) return undefined;
    const stored = encodeSqliteValue(values[index], column.type);
    // A value SQLite would convert (text into an INTEGER column, say) must be read back.
    if (!isStoredAsIs(stored, column.type)) return undefined;
    row[column.name] = decodeSqliteValue(stored, column.type);
  }
  return isStrict(statement.table) ? row : undefined;
}
