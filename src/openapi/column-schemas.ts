/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of one column's values, as a client reads
 * them and as it may write them. These describe the wire format; the server's own validators
 * (src/tables/column-schema.ts) add checks no document can express (no U+0000, json depth).
 */
import type { ColumnDefinition } from '../tables/definition.js';
import { ROW_ID_PATTERN } from '../tables/row-validator.js';

/** A JSON Schema object (plain data, ready for JSON). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Reading a row, or writing one (create and update bodies). */
export type Direction = 'read' | 'write';

const SAFE = Number.MAX_SAFE_INTEGER;

/** The schema of a declared column's values; `nullable` adds null. */
export function columnSchema(column: ColumnDefinition, direction: Direction, nullable: boolean): JsonSchema {
  const base: Record<string, unknown> = valueSchema(column, direction);
  const notes = columnNotes(column, direction);
  if (notes) base.description = notes;
  if (direction === 'write' && column.default !== undefined) base.default = column.default;
  if (!nullable || column.type === 'json') return base;
  if (base.enum) return { ...base, type: ['string', 'null'], enum: [...(base.enum as string[]), null] };
  return { ...base, type: [base.type, 'null'] };
}

function valueSchema(column: ColumnDefinition, direction: Direction): Record<string, unknown> {
  switch (column.type) {
    case 'text':
      return {
        type: 'string',
        ...(column.max_length !== undefined && { maxLength: column.max_length }),
        ...(column.enum && { enum: [...column.enum] }),
      };
    case 'integer':
      return { type: 'integer', minimum: Math.max(column.min ?? -SAFE, -SAFE), maximum: Math.min(column.max ?? SAFE, SAFE) };
    case 'number':
      return { type: 'number', ...(column.min !== undefined && { minimum: column.min }), ...(column.max !== undefined && { maximum: column.max }) };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      // Written as any ISO 8601 date or date-time (a time without zone is UTC); read in UTC with `Z`.
      return direction === 'read' ? { type: 'string', format: 'date-time' } : { type: 'string' };
    case 'json':
      return {};
  }
}

/** Words for what the schema keywords cannot say: uniqueness, references, json. */
function columnNotes(column: ColumnDefinition, direction: Direction): string | undefined {
  const notes: string[] = [];
  if (column.type === 'json') notes.push('Any JSON value (arrays and objects at most 64 levels deep).');
  if (column.type === 'timestamp') {
    notes.push(direction === 'read' ? 'In UTC with milliseconds and Z.' : 'ISO 8601: a date (2026-01-31) or a date-time; a time without zone is UTC.');
  }
  if (column.unique) notes.push('Unique within the table.');
  if (column.references) notes.push(`The id of a row of "${column.references.table}" (on delete: ${column.references.on_delete}).`);
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** The system and auth columns as read: id and timestamps (read-only), email, email_verified. */
export const READ_SYSTEM_COLUMNS: Readonly<Record<'id' | 'created_at' | 'updated_at' | 'email' | 'email_verified', JsonSchema>> = Object.freeze({
  id: { type: 'string', description: 'The row id: a UUIDv7 unless the create gave one.' },
  created_at: { type: 'string', format: 'date-time', readOnly: true, description: 'Set by the server when the row is created.' },
  updated_at: { type: 'string', format: 'date-time', readOnly: true, description: 'Set by the server on every change.' },
  email: { type: 'string', format: 'email', maxLength: 254, description: 'Stored lower-case; unique, case-insensitively.' },
  email_verified: { type: 'boolean', readOnly: true, description: 'Only the admin key may set it through the data API.' },
});

/** Minimum and maximum password length the server accepts (the minimum is a project setting, 8 by default). */
export const PASSWORD_LENGTH = Object.freeze({ min: 8, max: 256 });

const PASSWORD_SCHEMA = {
  type: 'string',
  writeOnly: true,
  minLength: PASSWORD_LENGTH.min,
  maxLength: PASSWORD_LENGTH.max,
  description: 'Write-only: stored as an argon2id hash, never returned. At least the setting min_password_length (8 by default).',
};

/** email and password in the signup body. */
export const SIGNUP_COLUMNS: Readonly<Record<'email' | 'password', JsonSchema>> = Object.freeze({
  email: { type: 'string', format: 'email', maxLength: 254, description: 'Stored lower-case; matched case-insensitively.' },
  password: PASSWORD_SCHEMA,
});

/** The system and auth columns as written (create bodies; update bodies leave out `id`). */
export const WRITE_SYSTEM_COLUMNS: Readonly<Record<'id' | 'email' | 'password' | 'email_verified', JsonSchema>> = Object.freeze({
  id: { type: 'string', pattern: ROW_ID_PATTERN, description: 'Optional: 1 to 64 characters of A-Z a-z 0-9 _ -. A UUIDv7 when left out.' },
  email: { type: 'string', format: 'email', maxLength: 254, description: 'Stored lower-case. Through the data API only with the admin key.' },
  password: { ...PASSWORD_SCHEMA, description: `${PASSWORD_SCHEMA.description} Through the data API only with the admin key.` },
  email_verified: { type: 'boolean', description: 'Only the admin key may set it.' },
});
