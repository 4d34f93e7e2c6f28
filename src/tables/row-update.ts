/**
 * The update of one row, in two phases: the plan (the SET list and the WHERE of the row the
 * caller may change) and the write inside the transaction, with what a changed email or
 * password of an auth-table user brings along.
 */
import { appendIdentityChange } from '../changes/event-log.js';
import { sql, type Assignment, type Expr } from '../query/sql-tree.js';
import type { Executor, Row } from '../store/types.js';
import type { CompiledTable } from './compiled-table.js';
import type { CredentialsPort } from './credentials-port.js';
import { rowNotFound } from './not-found.js';
import type { RowValues } from './row-validator.js';

/** An update ready to write: the row, its validated values, the SET list and the WHERE the update rule narrows. */
export interface UpdatePlan {
  readonly table: CompiledTable;
  readonly rowId: string;
  readonly values: RowValues;
  readonly set: readonly Assignment[];
  readonly where: Expr;
  /** The ISO time stamped into updated_at. */
  readonly now: string;
}

/** Plans the update of row `rowId` to `values` under the update rule's `condition` (undefined: none). */
export function planUpdate(
  table: CompiledTable,
  rowId: string,
  values: RowValues,
  condition: Expr | undefined,
  now: string,
): UpdatePlan {
  const column = (name: string) => table.physical.get(name)!;
  const set: Assignment[] = Object.entries(values).map(([name, value]) => ({
    column: column(name),
    value: sql.value(value, column(name).type),
  }));
  if ('password' in values) {
    // A new password ends every access token issued for the old one.
    set.push({
      column: column('password_version'),
      value: { kind: 'add', left: sql.column('password_version'), right: sql.value(1, 'integer') },
    });
  }
  set.push({ column: column('updated_at'), value: sql.value(now, 'timestamp') });
  return { table, rowId, values, set, where: sql.and(sql.eq('id', rowId), condition), now };
}

/**
 * Writes the planned update with `tx` (inside a transaction) and returns the readable row.
 * A new email starts unverified and voids the user's mailed links (through `credentials`); a
 * new password ends the realtime streams of the old one's tokens. Throws ROW_NOT_FOUND.
 */
export async function writeUpdate(tx: Executor, plan: UpdatePlan, credentials: CredentialsPort): Promise<Row> {
  const { table, rowId, values, where, now } = plan;
  const set = [...plan.set];
  const emailChanged = typeof values.email === 'string' && (await isNewEmail(tx, table, where, values.email));
  if (emailChanged && !('email_verified' in values)) {
    // A new address is unproven: it needs its own verification, and old links must not verify it.
    set.push({ column: table.physical.get('email_verified')!, value: sql.value(false, 'boolean') });
  }
  const row = await tx.first({ kind: 'update', table: table.name, set, where, returning: table.readable });
  if (!row) throw rowNotFound(table.name, rowId);
  if (emailChanged) await credentials.voidMailedLinks(tx, rowId);
  // Access tokens of the old password end: so do the realtime streams bound to them.
  if ('password' in values) await appendIdentityChange(tx, { user: rowId }, now);
  return row;
}

async function isNewEmail(tx: Executor, table: CompiledTable, where: Expr, email: string): Promise<boolean> {
  const current = await tx.first({ kind: 'select', table: table.name, columns: [table.physical.get('email')!], where });
  return current !== undefined && current.email !== email;
}
