/**
 * Upserts (contract §18): each row written with one `INSERT ... ON CONFLICT (column) DO UPDATE`.
 * The create rule judges a row that was inserted (checked once it exists, as for a create);
 * the update rule is the statement's condition on the existing row, so a row the caller may
 * not update is left as it is, and the answer is the one a plain insert gets (CONFLICT_UNIQUE),
 * which says no more about that row than the insert would.
 */
import { AppError } from '../errors/app-error.js';
import { sql, UPSERT_INSERTED, type ColumnRef, type Expr } from '../query/sql-tree.js';
import { StoreError, type Executor, type Row } from '../store/types.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import { ruleCondition } from './row-access.js';
import { checkCreateRule, insertableColumns, insertedValues, type InsertPlan } from './row-insert.js';
import { translateRowWriteError } from './write-errors.js';

/** Columns an upsert never copies onto the existing row: its identity and creation time. */
const KEPT_ON_UPDATE = new Set(['id', 'created_at', 'updated_at']);

/** A planned upsert: the planned insert of every row, and what an update of each would set and require. */
export interface UpsertPlan {
  readonly insert: InsertPlan;
  readonly target: ColumnRef;
  readonly rows: readonly {
    /** The columns the update sets: those the client sent, and updated_at. */
    readonly update: readonly ColumnRef[];
    /** The update rule on the existing row; `false` when the caller may update no row. */
    readonly condition: Expr | undefined;
  }[];
}

/** A row an upsert wrote, and whether it was inserted (else updated). */
export interface UpsertedRow {
  readonly row: Row;
  readonly inserted: boolean;
}

/**
 * The column named by `on_conflict`: a unique column of the table, or `id`. Throws
 * VALIDATION_FAILED for anything else, and on the auth table, whose users come from signup and
 * whose credentials change only through the auth endpoints.
 */
export function conflictTarget(table: CompiledTable, name: unknown): ColumnRef {
  const unique = ['id', ...table.definition.columns.filter((c) => c.unique).map((c) => c.name)];
  if (table.definition.auth_table) {
    throw new AppError('VALIDATION_FAILED', {
      message: `on_conflict: upserts are not available on the auth table "${table.name}".`,
      suggestion: 'Create users through POST /p/{id}/auth/signup and change their rows with PATCH.',
    });
  }
  if (typeof name !== 'string' || !unique.includes(name)) {
    throw new AppError('VALIDATION_FAILED', {
      message:
        `on_conflict: ${typeof name === 'string' ? `"${name.slice(0, 80)}"` : 'the parameter'} ` +
        `is not a unique column of "${table.name}".`,
      suggestion: `Name one column that is unique: ${unique.join(', ')}.`,
    });
  }
  return table.physical.get(name)!;
}

/**
 * Adds to a planned insert (validated bodies, create-rule conditions) what each row's update
 * would set and the update rule it is held to. Throws nothing: a locked update rule means no
 * row may be updated, so a conflict answers CONFLICT_UNIQUE as a plain insert would.
 */
export function planUpsert(
  insert: InsertPlan,
  target: ColumnRef,
  bodies: readonly unknown[],
  caller: Caller,
): UpsertPlan {
  const { table, now } = insert;
  const updatedAt = table.physical.get('updated_at')!;
  const locked = caller.kind !== 'admin' && table.rules.update.kind === 'locked';
  const rows = insert.rows.map(({ values }, index) => {
    const sentNames = Object.keys(bodies[index] as object);
    const sent = Object.fromEntries(sentNames.map((name) => [name, values[name]]));
    const update = sentNames
      .filter((name) => name !== target.name && !KEPT_ON_UPDATE.has(name))
      .map((name) => table.physical.get(name)!);
    return {
      update: [...update, updatedAt],
      condition: locked ? sql.bool(false) : ruleCondition(table, 'update', caller, now, sent),
    };
  });
  return { insert, target, rows };
}

/**
 * Writes the planned upserts with `tx`, in order (a later row may update an earlier one).
 * Throws CONFLICT_UNIQUE (a conflicting row the update rule keeps, or another unique column),
 * FORBIDDEN (an inserted row the create rule refuses), CONFLICT_REFERENCE, VALIDATION_FAILED.
 * Run it inside a transaction: a failing row must take the earlier ones with it.
 */
export async function writeUpserts(tx: Executor, plan: UpsertPlan): Promise<UpsertedRow[]> {
  const { table, now, bulk } = plan.insert;
  const columns = insertableColumns(table);
  const written: UpsertedRow[] = [];
  for (const [index, { values, condition: createRule }] of plan.insert.rows.entries()) {
    const { id, full, written: insertColumns } = insertedValues(table, columns, values, now);
    const { update, condition } = plan.rows[index]!;
    const where = bulk ? `row ${index}: ` : '';
    try {
      const result = await tx.first({
        kind: 'insert',
        table: table.name,
        columns: insertColumns,
        rows: [insertColumns.map((c) => full[c.name])],
        returning: table.readable,
        onConflictUpdate: { target: plan.target.name, update, ...(condition && { where: condition }) },
      });
      // No row: the value is taken by a row the caller may not update. A plain insert's answer.
      if (!result) throw new StoreError('unique', 'upsert kept the existing row', plan.target.name);
      const { [UPSERT_INSERTED.name]: inserted, ...row } = result;
      if (inserted === true && createRule) await checkCreateRule(tx, table, id, createRule, bulk ? index : undefined);
      written.push({ row, inserted: inserted === true });
    } catch (error) {
      throw await translateRowWriteError(error, tx, table, full, where);
    }
  }
  return written;
}
