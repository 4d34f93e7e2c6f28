/**
 * The write phase of creating rows: a planned insert (validated values and the compiled
 * create-rule condition of each row) written inside a transaction, each row checked against
 * the rule once it exists.
 */
import { AppError } from '../errors/app-error.js';
import { newRowId } from '../lib/ids.js';
import { sql, type ColumnRef, type Expr } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';
import type { CompiledTable } from './compiled-table.js';
import type { RowValues } from './row-validator.js';
import { translateRowWriteError } from './write-errors.js';

/** Rows ready to write: parsed, validated, passwords hashed, rule conditions compiled. */
export interface InsertPlan {
  readonly table: CompiledTable;
  /** The ISO time stamped into created_at / updated_at. */
  readonly now: string;
  /** Bulk inserts name the index of a failing row in errors. */
  readonly bulk: boolean;
  readonly rows: readonly { readonly values: RowValues; readonly condition: Expr | undefined }[];
}

/**
 * Inserts the plan's rows with `tx` and checks each against its create-rule condition; returns
 * the readable rows. Throws FORBIDDEN (rule), CONFLICT_* / VALIDATION_FAILED (constraints).
 * Run it inside a transaction: a refused row must take the earlier ones with it.
 */
export async function writeRows(tx: Executor, plan: InsertPlan): Promise<Row[]> {
  const { table, now, bulk } = plan;
  const columns = insertableColumns(table);
  const rows: Row[] = [];
  for (const [index, { values, condition }] of plan.rows.entries()) {
    const { id, full, written } = insertedValues(table, columns, values, now);
    try {
      const row = await tx.first({
        kind: 'insert',
        table: table.name,
        columns: written,
        rows: [written.map((c) => full[c.name])],
        returning: table.readable,
      });
      if (condition) await checkCreateRule(tx, table, id, condition, bulk ? index : undefined);
      rows.push(row!);
    } catch (error) {
      throw await translateRowWriteError(error, tx, table, full, bulk ? `row ${index}: ` : '');
    }
  }
  return rows;
}

/** The columns an insert may write: every physical column but the password version (the database's default). */
export function insertableColumns(table: CompiledTable): ColumnRef[] {
  return [...table.physical.values()].filter((c) => c.name !== 'password_version');
}

/**
 * The values a new row is written with: its id (generated when not given), the time stamps,
 * and null for every declared column left out; `written` is the columns that hold a value.
 */
export function insertedValues(
  table: CompiledTable,
  columns: readonly ColumnRef[],
  values: RowValues,
  now: string,
): { id: string; full: RowValues; written: readonly ColumnRef[] } {
  const id = (values.id as string | undefined) ?? newRowId();
  const full: RowValues = { ...values, id, created_at: now, updated_at: now };
  // A declared column left out (and without default) is written as null, never left to the
  // database: a SQLite file made by an earlier version may hold a DDL default for a column named like an
  // auth column (issue 27), and defaults are the row service's to apply on every engine.
  for (const column of table.definition.columns) if (full[column.name] === undefined) full[column.name] = null;
  // The whole column list when every column has a value (the usual case): the same array
  // on every row lets the store key its compiled statement by it.
  const written = columns.every((c) => full[c.name] !== undefined) ? columns : present(columns, full);
  return { id, full, written };
}

function present(columns: readonly ColumnRef[], values: RowValues): ColumnRef[] {
  return columns.filter((c) => values[c.name] !== undefined);
}

/** Throws FORBIDDEN unless the row `id` (just written by `tx`) meets the create rule's `condition`. */
export async function checkCreateRule(
  tx: Executor,
  table: CompiledTable,
  id: string,
  condition: Expr,
  index: number | undefined,
): Promise<void> {
  const visible = await tx.count({ kind: 'count', table: table.name, where: sql.and(sql.eq('id', id), condition) });
  if (visible === 0) {
    throw new AppError('FORBIDDEN', {
      message:
        `${index === undefined ? '' : `row ${index}: `}the ` +
        `create rule of "${table.name}" does not allow this row.`,
      suggestion: `Change the values to satisfy the rule: ${table.definition.rules.create}`,
    });
  }
}
