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

/** How writeRows writes: row by row (the default), or in multi-row statements. */
export interface WriteRowsOptions {
  /**
   * Rows in statements of many rows (canWriteTogether must hold). When such a statement is
   * refused (a constraint), writeRows throws RowsRefusedTogether: run the transaction again
   * row by row to learn which row failed, and why.
   */
  readonly together?: boolean;
}

/** A multi-row insert of writeRows was refused; the transaction must be rolled back and written row by row. */
export class RowsRefusedTogether extends Error {
  constructor(cause: unknown) {
    super('A multi-row insert was refused; write the rows one at a time to name the failing row.', { cause });
  }
}

/** Bound parameters per multi-row insert: PostgreSQL allows 65,535; SQLite's store splits further itself. */
const PARAMETERS_PER_INSERT = 10_000;

/**
 * True when the plan's rows may be written in multi-row statements with the same outcome as
 * one at a time: several rows, no create-rule condition (checked per row, after its insert,
 * and able to see the rows before it), and no column referencing the table itself (a row
 * could name a later row of the same statement, which a row-by-row write refuses).
 */
export function canWriteTogether(plan: InsertPlan): boolean {
  const { table } = plan;
  return (
    plan.rows.length > 1 &&
    plan.rows.every((row) => row.condition === undefined) &&
    !table.definition.columns.some((c) => c.references?.table === table.name)
  );
}

/**
 * Inserts the plan's rows with `tx` and checks each against its create-rule condition; returns
 * the readable rows. Throws FORBIDDEN (rule), CONFLICT_* / VALIDATION_FAILED (constraints),
 * and with `together`, RowsRefusedTogether instead of a constraint's error.
 * Run it inside a transaction: a refused row must take the earlier ones with it.
 */
export async function writeRows(tx: Executor, plan: InsertPlan, options: WriteRowsOptions = {}): Promise<Row[]> {
  const { table, now, bulk } = plan;
  const columns = insertableColumns(table);
  const fulls = plan.rows.map(({ values }) => fullRow(table, values, now));
  // Together only when every row sets every column: one column list, so one statement text.
  if (options.together && fulls.every((full) => columns.every((c) => full[c.name] !== undefined)))
    return writeTogether(tx, table, columns, fulls);
  const rows: Row[] = [];
  for (const [index, { condition }] of plan.rows.entries()) {
    const full = fulls[index]!;
    const id = full.id as string;
    try {
      // The whole column list when every column has a value (the usual case): the same array
      // on every row lets the store key its compiled statement by it.
      const written = columns.every((c) => full[c.name] !== undefined) ? columns : present(columns, full);
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
 * The values a new row is written with (fullRow), and `written`: the columns that hold a value.
 */
export function insertedValues(
  table: CompiledTable,
  columns: readonly ColumnRef[],
  values: RowValues,
  now: string,
): { id: string; full: RowValues; written: readonly ColumnRef[] } {
  const full = fullRow(table, values, now);
  // The whole column list when every column has a value (the usual case): the same array
  // on every row lets the store key its compiled statement by it.
  const written = columns.every((c) => full[c.name] !== undefined) ? columns : present(columns, full);
  return { id: full.id as string, full, written };
}

/** A row's values as written: its id (new unless given), timestamps, and null for each declared column left out. */
function fullRow(table: CompiledTable, values: RowValues, now: string): RowValues {
  const id = (values.id as string | undefined) ?? newRowId();
  // The three keys first, then the values (and the three set again, so they win as before): V8
  // gives keys added after a spread a new hidden class for every object, about 2 µs a row in a
  // micro-benchmark, where a literal that starts with them costs 0.07 µs.
  const full: RowValues = { id, created_at: now, updated_at: now, ...values };
  full.id = id;
  full.created_at = now;
  full.updated_at = now;
  // A declared column left out (and without default) is written as null, never left to the
  // database: a SQLite file made by an earlier version may hold a DDL default for a column named like an
  // auth column (issue 27), and defaults are the row service's to apply on every engine.
  for (const column of table.definition.columns) if (full[column.name] === undefined) full[column.name] = null;
  return full;
}

/** Inserts `fulls` in statements of many rows; returns the readable rows in the same order. */
async function writeTogether(
  tx: Executor,
  table: CompiledTable,
  columns: readonly ColumnRef[],
  fulls: readonly RowValues[],
): Promise<Row[]> {
  const perStatement = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / columns.length));
  const rows: Row[] = [];
  for (let start = 0; start < fulls.length; start += perStatement) {
    const chunk = fulls.slice(start, start + perStatement);
    let written: Row[];
    try {
      written = await tx.all({
        kind: 'insert',
        table: table.name,
        columns,
        rows: chunk.map((full) => columns.map((c) => full[c.name])),
        returning: table.readable,
      });
    } catch (error) {
      throw new RowsRefusedTogether(error);
    }
    rows.push(...inRowOrder(written, chunk));
  }
  return rows;
}

/**
 * `written` (what RETURNING read) in the order of `fulls`, matched by id: an engine need not return
 * rows in VALUES order.
 */
function inRowOrder(written: readonly Row[], fulls: readonly RowValues[]): Row[] {
  if (written.length === fulls.length && written.every((row, i) => row.id === fulls[i]!.id)) return [...written];
  const byId = new Map(written.map((row) => [row.id, row]));
  return fulls.map((full) => {
    const row = byId.get(full.id);
    if (!row) throw new Error(`the insert returned no row for id ${String(full.id)}`);
    return row;
  });
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
