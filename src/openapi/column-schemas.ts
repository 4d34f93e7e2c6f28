/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of one column's values, as a client reads
 * them and as it may write them. These describe the wire format as precisely as JSON Schema
 * can: text refuses U+0000 by `pattern`, timestamps carry the server's own ISO 8601 pattern.
 * The server's validators (src/tables/column-schema.ts) still check what no keyword states:
 * json depth, unpaired UTF-16 surrogates, impossible dates. Both take a column's value rules
 * from one function (src/tables/column-value-schema.ts) and differ only in their profiles.
 */
import { ISO_TIMESTAMP_PATTERN } from '../lib/timestamps.js';
import { columnValueSchema, type ValueSchemaProfile } from '../tables/column-value-schema.js';
import type { ColumnDefinition } from '../schema/definition.js';
import { ROW_ID_PATTERN } from '../tables/row-validator.js';

/** A JSON Schema object (plain data, ready for JSON). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * Reading a row, or writing one: a create (and signup) body, where a left-out column takes its
 * `default`, or a PATCH body, where a left-out column keeps its value (so no `default` there).
 */
export type Direction = 'read' | 'create' | 'update';

/**
 * Text without U+0000 (the server refuses it: PostgreSQL cannot store it). `\u0000` is the
 * regex escape, which both ECMA regular expressions and JSON Schema validators read; the
 * JSON text carries it escaped, never a raw NUL byte.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Words for the text rules no keyword states: the NUL the pattern refuses, and unpaired surrogates. */
const TEXT_NOTE = 'Text without U+0000 (NUL) or unpaired UTF-16 surrogates.';

/** The schema of a declared column's values; `nullable` adds null. */
export function columnSchema(
  column: ColumnDefinition,
  direction: Direction,
  { nullable }: { readonly nullable: boolean },
): JsonSchema {
  const base: Record<string, unknown> = columnValueSchema(column, documentProfile(direction));
  const notes = columnNotes(column, direction);
  if (notes) base.description = notes;
  if (direction === 'create' && column.default !== undefined) base.default = column.default;
  if (!nullable || column.type === 'json') return base;
  if (base.enum) return { ...base, type: ['string', 'null'], enum: [...(base.enum as string[]), null] };
  return { ...base, type: [base.type, 'null'] };
}

/**
 * The document's words where it differs from the validators: standard keywords a client's
 * tools understand. An enum already names every accepted value; a NUL pattern beside it would
 * say nothing more. Timestamps are read in UTC with `Z`, and written as the ISO 8601 forms the
 * pattern states (also a date, or a time without zone, read as UTC); format names the form
 * clients should send.
 */
function documentProfile(direction: Direction): ValueSchemaProfile {
  return {
    text: (rules, column) => ({ type: 'string', ...rules, ...(!column.enum && { pattern: NO_NUL_PATTERN }) }),
    timestamp: () =>
      direction === 'read'
        ? { type: 'string', format: 'date-time' }
        : { type: 'string', format: 'date-time', pattern: ISO_TIMESTAMP_PATTERN },
    json: () => ({}),
  };
}

/** Words for what the schema keywords cannot say: uniqueness, references, json. */
function columnNotes(column: ColumnDefinition, direction: Direction): string | undefined {
  const notes: string[] = [];
  if (column.type === 'json')
    notes.push(
      'Any JSON value (arrays and objects at most 64 levels deep; ' +
        'strings without U+0000 or unpaired UTF-16 surrogates).',
    );
  if (column.type === 'text' && !column.enum) notes.push(TEXT_NOTE);
  if (column.type === 'timestamp') {
    notes.push(
      direction === 'read'
        ? 'In UTC with milliseconds and Z.'
        : 'ISO 8601: a date-time (2026-01-31T09:30:00Z), or a date ' +
            '(2026-01-31) or a time without zone, both read as UTC.',
    );
  }
  if (column.unique) notes.push('Unique within the table.');
  if (column.references)
    notes.push(`The id of a row of "${column.references.table}" (on delete: ${column.references.on_delete}).`);
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** The system and auth columns as read: id and timestamps (read-only), email, email_verified. */
export const READ_SYSTEM_COLUMNS: Readonly<
  Record<'id' | 'created_at' | 'updated_at' | 'email' | 'email_verified', JsonSchema>
> = Object.freeze({
  id: { type: 'string', description: 'The row id: a UUIDv7 unless the create gave one.' },
  created_at: {
    type: 'string',
    format: 'date-time',
    readOnly: true,
    description: 'Set by the server when the row is created.',
  },
  updated_at: {
    type: 'string',
    format: 'date-time',
    readOnly: true,
    description: 'Set by the server on every change.',
  },
  email: {
    type: 'string',
    format: 'email',
    maxLength: 254,
    description: 'Stored lower-case; unique, case-insensitively.',
  },
  email_verified: {
    type: 'boolean',
    readOnly: true,
    description: 'Only the admin key may set it through the data API.',
  },
});

/** Minimum and maximum password length the server accepts (the minimum is a project setting, 8 by default). */
export const PASSWORD_LENGTH = Object.freeze({ min: 8, max: 256 });

const PASSWORD_SCHEMA = {
  type: 'string',
  writeOnly: true,
  minLength: PASSWORD_LENGTH.min,
  maxLength: PASSWORD_LENGTH.max,
  description:
    'Write-only: stored as an argon2id hash, never returned. At least the setting min_password_length (8 by default).',
};

/** email and password in the signup body. */
export const SIGNUP_COLUMNS: Readonly<Record<'email' | 'password', JsonSchema>> = Object.freeze({
  email: {
    type: 'string',
    format: 'email',
    maxLength: 254,
    description: 'Stored lower-case; matched case-insensitively.',
  },
  password: PASSWORD_SCHEMA,
});

/** The system and auth columns as written (create bodies; update bodies leave out `id`). */
export const WRITE_SYSTEM_COLUMNS: Readonly<Record<'id' | 'email' | 'password' | 'email_verified', JsonSchema>> =
  Object.freeze({
    id: {
      type: 'string',
      pattern: ROW_ID_PATTERN,
      description: 'Optional: 1 to 64 characters of A-Z a-z 0-9 _ -. A UUIDv7 when left out.',
    },
    email: {
      type: 'string',
      format: 'email',
      maxLength: 254,
      description: 'Stored lower-case. Through the data API only with the admin key.',
    },
    password: {
      ...PASSWORD_SCHEMA,
      description: `${PASSWORD_SCHEMA.description} Through the data API only with the admin key.`,
    },
    email_verified: { type: 'boolean', description: 'Only the admin key may set it.' },
  });
