/**
 * Signup's write: a create on the project's auth table for an anonymous caller, through the
 * row service's plan and write phases. The create rule applies (with `@request.body`) and
 * custom columns are stored; `email_verified` and `id` are the server's to set. A taken email
 * is AUTH_EMAIL_TAKEN, told only to a caller the create rule would have admitted.
 */
import { AppError } from '../errors/app-error.js';
import { newRowId } from '../lib/ids.js';
import { sql } from '../query/sql-tree.js';
import type { Database, Row } from '../store/types.js';
import { writeRows, type InsertPlan } from '../tables/row-insert.js';
import type { RowContext, RowService } from '../tables/row-service.js';
import type { SchemaService } from '../tables/schema-service.js';
import { translateWriteError } from '../tables/write-errors.js';

/** The fields a signup body may not hold, and what to do instead. */
const SERVER_SET_FIELDS = {
  email_verified: 'Remove email_verified; users verify through the link in the verification email.',
  id: 'Remove id; a UUIDv7 is generated.',
} as const;

/**
 * Creates the user `body` describes in the auth table and returns its readable row. Throws
 * AUTH_NOT_CONFIGURED, VALIDATION_*, FORBIDDEN, AUTH_EMAIL_TAKEN, CONFLICT_UNIQUE (another
 * unique column), CONFLICT_REFERENCE.
 */
export async function createSignupUser(
  schemas: SchemaService,
  rows: RowService,
  context: RowContext,
  body: unknown,
): Promise<Row> {
  const { db, authTable } = await schemas.schema(context.projectId);
  if (!authTable) throw new AppError('AUTH_NOT_CONFIGURED');
  refuseServerSetFields(body);
  const plan = await rows.planCreate(context, authTable, [body], { bulk: false, byAuthFlow: true });
  try {
    const [row] = await rows.writeCreate(context, db, plan);
    return row!;
  } catch (error) {
    const { email } = plan.rows[0]!.values;
    if (error instanceof AppError && error.code === 'CONFLICT_UNIQUE' && typeof email === 'string') {
      const taken = await db.count({ kind: 'count', table: authTable.name, where: sql.eq('email', email) });
      if (taken > 0) {
        // Only a caller the create rule admits may learn that the
        // email is registered (an open rule admits all: no probe).
        if (plan.rows[0]!.condition) await probeCreateRuleForTakenEmail(db, plan, email);
        throw new AppError('AUTH_EMAIL_TAKEN');
      }
    }
    throw error;
  }
}

/** Throws VALIDATION_FAILED when the body sets a field only the server sets at signup. */
function refuseServerSetFields(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  for (const [field, suggestion] of Object.entries(SERVER_SET_FIELDS)) {
    if (field in body)
      throw new AppError('VALIDATION_FAILED', {
        message: `${field}: is set by the server, not at signup.`,
        suggestion,
      });
  }
}

/** Rolls the probe's transaction back once the rule admitted the row. */
class ProbeAdmitted extends Error {}

/**
 * For a signup whose email belongs to another user: writes the submitted row as sent, in a
 * transaction that never commits, with the owner's email moved aside so the unique index
 * cannot fail first. Returns when the create rule admits the row; throws what a signup with
 * an unused email would have thrown (FORBIDDEN, or another constraint's CONFLICT_* error).
 */
async function probeCreateRuleForTakenEmail(db: Database, plan: InsertPlan, email: string): Promise<void> {
  const { table } = plan;
  try {
    await db.transaction(async (tx) => {
      const placeholder = `rowbase-probe-${newRowId()}@invalid`;
      await tx.run({
        kind: 'update',
        table: table.name,
        set: [{ column: table.physical.get('email')!, value: sql.value(placeholder, 'text') }],
        where: sql.eq('email', email),
      });
      await writeRows(tx, plan);
      throw new ProbeAdmitted();
    });
  } catch (error) {
    if (error instanceof ProbeAdmitted) return;
    throw translateWriteError(error, table.name);
  }
}
