/**
 * Reads and writes of the auth table's users for the auth flows: lookups by email or id
 * with the secret columns, password changes bound to the password version, verification.
 * The user object clients see is the readable row (never password or password_version).
 */
import { AppError } from '../errors/app-error.js';
import { sql, type ColumnRef } from '../query/sql-tree.js';
import type { Executor, ProjectDatabase, Row } from '../store/types.js';
import type { CompiledTable } from '../tables/compiled-table.js';
import type { SchemaService } from '../tables/schema-service.js';
import { appendIdentityChange, appendRowChanges } from '../changes/event-log.js';

/** A project's auth table and the database it lives in. */
export interface AuthTable {
  readonly db: ProjectDatabase;
  readonly table: CompiledTable;
  /** True when the table has `verify_email: true`. */
  readonly verifyEmail: boolean;
}

/** A user with the columns only the auth flows may read. */
export interface StoredUser {
  /** The client-facing row: id, email, email_verified, created_at, updated_at and custom columns. */
  readonly user: Row;
  readonly id: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly passwordHash: string;
  readonly passwordVersion: number;
}

/** Opens the project's auth table. Throws AUTH_NOT_CONFIGURED when it has none. */
export async function openAuthTable(schemas: SchemaService, projectId: string): Promise<AuthTable> {
  const schema = await schemas.schema(projectId);
  if (!schema.authTable) throw new AppError('AUTH_NOT_CONFIGURED');
  return { db: schema.db, table: schema.authTable, verifyEmail: schema.authTable.definition.verify_email };
}

function secretColumns(table: CompiledTable): ColumnRef[] {
  return [...table.readable, table.physical.get('password')!, table.physical.get('password_version')!];
}

function toStoredUser(table: CompiledTable, row: Row | undefined): StoredUser | undefined {
  if (!row) return undefined;
  const user: Row = {};
  for (const column of table.readable) user[column.name] = row[column.name];
  return {
    user,
    id: String(row.id),
    email: String(row.email),
    emailVerified: row.email_verified === true,
    passwordHash: String(row.password),
    passwordVersion: Number(row.password_version),
  };
}

/** The user with this (already lower-cased) email, or undefined. */
export async function findUserByEmail(
  executor: Executor,
  table: CompiledTable,
  email: string,
): Promise<StoredUser | undefined> {
  const row = await executor.first({
    kind: 'select',
    table: table.name,
    columns: secretColumns(table),
    where: sql.eq('email', email),
  });
  return toStoredUser(table, row);
}

/** The user with this id, or undefined. */
export async function findUserById(
  executor: Executor,
  table: CompiledTable,
  id: string,
): Promise<StoredUser | undefined> {
  const row = await executor.first({
    kind: 'select',
    table: table.name,
    columns: secretColumns(table),
    where: sql.eq('id', id),
  });
  return toStoredUser(table, row);
}

/**
 * Stores a new password hash and bumps the password version, but only if the version is
 * still `expectedVersion` (a concurrent change wins once, never twice). `verifyEmail` also marks
 * the email verified (a reset link proves the mailbox). Returns the updated user, or
 * undefined when the version moved on.
 */
export async function replacePassword(
  tx: Executor,
  table: CompiledTable,
  userId: string,
  passwordHash: string,
  expectedVersion: number,
  now: string,
  { verifyEmail = false }: { readonly verifyEmail?: boolean } = {},
): Promise<StoredUser | undefined> {
  const set = [
    { column: table.physical.get('password')!, value: sql.value(passwordHash, 'text') },
    { column: table.physical.get('password_version')!, value: sql.value(expectedVersion + 1, 'integer') },
    { column: table.physical.get('updated_at')!, value: sql.value(now, 'timestamp') },
  ];
  if (verifyEmail) set.push({ column: table.physical.get('email_verified')!, value: sql.value(true, 'boolean') });
  const row = await tx.first({
    kind: 'update',
    table: table.name,
    set,
    where: sql.and(sql.eq('id', userId), sql.eq('password_version', expectedVersion, 'integer')),
    returning: secretColumns(table),
  });
  const stored = toStoredUser(table, row);
  // Realtime: streams bound to the old password's tokens end, then subscribers see the row change.
  if (stored) await appendIdentityChange(tx, { user: stored.id }, now);
  if (stored) await appendRowChanges(tx, [{ table: table.name, action: 'update', record: stored.user }], now);
  return stored;
}

/** Marks the user's email verified; returns the updated user, or undefined if it is gone. */
export async function markEmailVerified(
  tx: Executor,
  table: CompiledTable,
  userId: string,
  now: string,
): Promise<StoredUser | undefined> {
  const row = await tx.first({
    kind: 'update',
    table: table.name,
    set: [
      { column: table.physical.get('email_verified')!, value: sql.value(true, 'boolean') },
      { column: table.physical.get('updated_at')!, value: sql.value(now, 'timestamp') },
    ],
    where: sql.eq('id', userId),
    returning: secretColumns(table),
  });
  const stored = toStoredUser(table, row);
  if (stored) await appendRowChanges(tx, [{ table: table.name, action: 'update', record: stored.user }], now);
  return stored;
}
