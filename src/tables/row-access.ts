/**
 * Access decisions for the data API: a table rule turned into a WHERE condition for one
 * caller, and the auth-table fields only the auth endpoints (or the admin key) may write.
 */
import { AppError } from '../errors/app-error.js';
import { ruleToExpr } from '../query/rules.js';
import { pathResolver } from './relation-paths.js';
import type { Expr } from '../query/sql-tree.js';
import type { Caller } from './caller.js';
import type { CompiledTable } from './compiled-table.js';
import type { RuleOperation } from '../schema/definition.js';

/**
 * The condition rows must meet for `caller` to perform `operation`, or undefined for no
 * condition (admin key, or an open rule). Throws FORBIDDEN when the operation is locked.
 */
export function ruleCondition(
  table: CompiledTable,
  operation: RuleOperation,
  caller: Caller,
  now: string,
  body?: Readonly<Record<string, unknown>>,
): Expr | undefined {
  if (caller.kind === 'admin') return undefined;
  const condition = ruleToExpr(table.rules[operation], {
    parameter: `rules.${operation}`,
    columns: table.filterable,
    now,
    auth: caller.kind === 'user' ? caller.user : null,
    authColumns: table.authColumns,
    ...(body !== undefined && { body }),
    // Rules read related rows freely (they are the admin's); a caller's own filter gets guarded paths (row-list.ts).
    ...(table.schemaDefinitions && { paths: pathResolver(table.schemaDefinitions, table.name) }),
  });
  if (condition === 'locked') {
    const route = `PATCH /p/{id}/v1/tables/${table.name}`;
    // Say why (a null rule, perhaps reset by a PUT without "rules") and the one call that opens just this rule.
    const locked = `The table's ${operation} rule is null (admin key only).`;
    throw new AppError('FORBIDDEN', {
      message: `The ${operation} rule of table "${table.name}" allows only the admin key.`,
      // On an auth table an open rule ("") would show every user's row, email included, to anyone.
      suggestion: table.definition.auth_table
        ? `${locked} Use X-Admin-Key, or let each user reach their own row with ` +
          `${route} {"rules": {"${operation}": "id = @request.auth.id"}}; "" ` +
          `would open every user's row, email included, to anyone.`
        : `${locked} Use X-Admin-Key, or open it with ${route} {"rules": ` +
          `{"${operation}": ""}} (other rules stay as they are).`,
    });
  }
  return condition;
}

/** Throws FORBIDDEN when a non-admin caller creates a row of the auth table: users come from signup. */
export function refuseUserCreation(table: CompiledTable, caller: Caller): void {
  if (caller.kind === 'admin' || !table.definition.auth_table) return;
  throw new AppError('FORBIDDEN', {
    message: `Users of "${table.name}" are created through signup, not the data API.`,
    suggestion: 'Use POST /p/{id}/auth/signup, or the admin key.',
  });
}

/** Throws FORBIDDEN when a non-admin update body touches fields only the auth endpoints may change. */
export function checkProtectedFields(table: CompiledTable, caller: Caller, body: unknown): void {
  if (caller.kind === 'admin' || !table.definition.auth_table) return;
  if (typeof body !== 'object' || body === null) return;
  for (const field of ['email', 'password', 'email_verified'] as const) {
    if (field in body) {
      throw new AppError('FORBIDDEN', {
        message: `${field}: can only be changed through the auth endpoints.`,
        suggestion:
          field === 'password'
            ? 'Use POST /p/{id}/auth/change-password or the reset flow.'
            : field === 'email_verified'
              ? 'Users verify through the link in the verification email.'
              : 'Email changes need the admin key.',
      });
    }
  }
}
