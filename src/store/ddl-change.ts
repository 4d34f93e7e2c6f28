/**
 * The engine-neutral comparison of a table before and after a change: which declared columns
 * are added, dropped, reset (cleared by an allowed destructive type change), retyped or made
 * required or optional, whose foreign keys go or come, and whether the auth columns come or go.
 * Both engines read the same comparison: PostgreSQL turns it into ALTER steps, SQLite decides
 * from it whether ALTER TABLE suffices or the table must be rebuilt.
 */
import type { ColumnDefinition, TableDefinition } from '../schema/definition.js';

/** A declared column of the table after the change, and what happens to it. */
export type ColumnStep =
  | { readonly kind: 'added'; readonly column: ColumnDefinition }
  /** Kept, but its values are cleared (then defaulted): a destructive type change. */
  | { readonly kind: 'reset'; readonly column: ColumnDefinition; readonly previous: ColumnDefinition }
  | { readonly kind: 'kept'; readonly column: ColumnDefinition; readonly previous: ColumnDefinition };

/** What a change does to a table that exists before and after it. */
export interface TableDiff {
  /** Every declared column after the change, in table order. */
  readonly steps: readonly ColumnStep[];
  /** Declared columns that exist no more. */
  readonly dropped: readonly string[];
  /** The table becomes an auth table (its auth columns are added). */
  readonly authAdded: boolean;
  /** The table stops being an auth table (its auth columns go). */
  readonly authDropped: boolean;
  /** Columns whose foreign key goes: the column was dropped, or its reference changed or went. */
  readonly foreignKeysDropped: readonly string[];
  /** Columns whose foreign key comes: a new column with a reference, or a changed reference. */
  readonly foreignKeysAdded: readonly ColumnDefinition[];
}

/** True when both columns reference the same table with the same on-delete action (or neither references). */
export function sameReference(a: ColumnDefinition, b: ColumnDefinition): boolean {
  return a.references?.table === b.references?.table && a.references?.on_delete === b.references?.on_delete;
}

/** Compares `before` and `after` of one table; `resetColumns` names the kept columns to clear. */
export function diffTable(before: TableDefinition, after: TableDefinition, resetColumns: readonly string[]): TableDiff {
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const next = new Set(after.columns.map((c) => c.name));
  const reset = new Set(resetColumns);
  const steps: ColumnStep[] = after.columns.map((column) => {
    const previous = old.get(column.name);
    if (!previous) return { kind: 'added', column };
    return { kind: reset.has(column.name) ? 'reset' : 'kept', column, previous };
  });
  return {
    steps,
    dropped: before.columns.filter((c) => !next.has(c.name)).map((c) => c.name),
    authAdded: !before.auth_table && after.auth_table,
    authDropped: before.auth_table && !after.auth_table,
    foreignKeysDropped: before.columns
      .filter((previous) => previous.references)
      .filter((previous) => {
        const step = steps.find((s) => s.column.name === previous.name);
        return !step || !sameReference(previous, step.column);
      })
      .map((c) => c.name),
    foreignKeysAdded: steps
      .filter((s) => s.column.references && (s.kind === 'added' || !sameReference(s.previous, s.column)))
      .map((s) => s.column),
  };
}
