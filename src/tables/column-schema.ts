/**
 * Column rules as JSON Schema, compiled by ajv: the per-table row validators and the check
 * of declared defaults both come from here (the value rules themselves from
 * `column-value-schema.ts`, shared with the OpenAPI document). Holds the one Ajv instance; compiled schemas are
 * removed from its cache at once, so replaced tables leave nothing behind.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { containsNonFiniteNumber, containsNul, exceedsJsonDepth, MAX_JSON_DEPTH } from '../lib/nul-character.js';
import { normaliseTimestamp } from '../lib/timestamps.js';
import { containsUnpairedSurrogate } from '../lib/unpaired-surrogate.js';
import { columnValueSchema, type ColumnValueRules, type ValueSchemaProfile } from './column-value-schema.js';
import type { ColumnDefinition } from '../schema/definition.js';

// Pragmatic address check (WHATWG's input type=email rule); delivery is the real proof.
const EMAIL_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const EMAIL = new RegExp(`^[a-zA-Z0-9.!#$%&'*+/=?^_\`{|}~-]+@${EMAIL_LABEL}(?:\\.${EMAIL_LABEL})*$`);

/** True for an email address Rowbase accepts (at most 254 characters). */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

// strictNumbers: JSON.parse reads 1e400 as Infinity; `number` and `integer` must refuse it
// (it would be stored as null, or not at all) rather than pass it on.
const ajv = new Ajv({ allErrors: false, strict: false, strictNumbers: true, addUsedSchema: false });
ajv.addFormat('timestamp', { type: 'string', validate: (v: string) => normaliseTimestamp(v) !== undefined });
ajv.addFormat('email', { type: 'string', validate: isEmail });
// U+0000 in a string or a json value (keys included): PostgreSQL text and jsonb cannot store it,
// and both engines must accept the same values, so it is refused everywhere (docs/engines.md).
ajv.addKeyword({
  keyword: 'noNul',
  schemaType: 'boolean',
  validate: (enabled: boolean, data: unknown) => !enabled || !containsNul(data),
  errors: false,
});
// Beside NUL, for the same reason: an unpaired UTF-16 surrogate ("\ud800") has no UTF-8 form, so
// SQLite and PostgreSQL would each store a different replacement (docs/engines.md).
ajv.addKeyword({
  keyword: 'wellFormed',
  schemaType: 'boolean',
  validate: (enabled: boolean, data: unknown) => !enabled || !containsUnpairedSurrogate(data),
  errors: false,
});
// Deeper json values would overflow the stack when serialised or parsed again later.
// The same for numbers inside json values: Infinity would come back as null.
ajv.addKeyword({
  keyword: 'finiteNumbers',
  schemaType: 'boolean',
  validate: (enabled: boolean, data: unknown) => !enabled || !containsNonFiniteNumber(data),
  errors: false,
});
ajv.addKeyword({
  keyword: 'maxJsonDepth',
  schemaType: 'number',
  validate: (max: number, data: unknown) => !exceedsJsonDepth(data, max),
  errors: false,
});

/** Compiles a schema and drops it from ajv's cache (the returned function keeps working). */
export function compileSchema(schema: object): ValidateFunction {
  const validate = ajv.compile(schema);
  ajv.removeSchema(schema);
  return validate;
}

/** The validator's words where it differs from the OpenAPI document: its own keywords and format. */
const VALIDATION_PROFILE: ValueSchemaProfile = {
  // No U+0000: PostgreSQL cannot store it, and both engines must accept the same values.
  text: (rules) => ({ type: 'string', noNul: true, wellFormed: true, ...rules }),
  timestamp: () => ({ type: 'string', format: 'timestamp' }),
  // Depth first: the NUL walk is iterative too, but there is no point walking a hostile value twice.
  json: () => ({
    allOf: [{ maxJsonDepth: MAX_JSON_DEPTH }, { noNul: true }, { wellFormed: true }, { finiteNumbers: true }],
  }),
};

/** The JSON Schema of one column's values, as the validators check them; `nullable` adds null. */
export function columnJsonSchema(column: ColumnValueRules, { nullable }: { readonly nullable: boolean }): object {
  const base = columnValueSchema(column, VALIDATION_PROFILE);
  if (!nullable || column.type === 'json') return base;
  if (base.enum) return { anyOf: [{ type: 'null' }, base] };
  return { ...base, type: [base.type, 'null'] };
}

const TYPE_WORDS = {
  text: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  timestamp: 'an ISO 8601 timestamp such as "2026-01-31T09:30:00Z"',
  json: 'any JSON value',
} as const;

const OUT_OF_RANGE =
  'is out of range: JSON numbers beyond ±1.7976931348623157e308 read as infinity, which cannot be stored';

/** Words for why `value` failed its column's schema, from ajv's first error. */
export function describeColumnError(column: ColumnValueRules, error: ErrorObject, value?: unknown): string {
  if ((column.type === 'number' || column.type === 'integer') && typeof value === 'number' && !Number.isFinite(value)) {
    return column.type === 'integer'
      ? `must be ${TYPE_WORDS.integer} within ±(2^53-1); this one ${OUT_OF_RANGE}`
      : `must be a finite number; this one ${OUT_OF_RANGE}`;
  }
  switch (error.keyword) {
    case 'maxLength':
      return `must be at most ${column.max_length} characters`;
    case 'enum':
      return `must be one of ${(column.enum ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
      return column.type === 'integer' && column.min === undefined
        ? `must be ${TYPE_WORDS.integer} within ±(2^53-1)`
        : `must be at least ${error.params.limit}`;
    case 'maximum':
      return column.type === 'integer' && column.max === undefined
        ? `must be ${TYPE_WORDS.integer} within ±(2^53-1)`
        : `must be at most ${error.params.limit}`;
    case 'noNul':
      return 'must not contain the NUL character (U+0000)';
    case 'wellFormed':
      return (
        'must not contain an unpaired UTF-16 surrogate (such ' +
        'as \\ud800): it is not a character and cannot be stored'
      );
    case 'finiteNumbers':
      return `must not hold numbers beyond ±1.7976931348623157e308 (they read as infinity, which JSON cannot store)`;
    case 'maxJsonDepth':
      return `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;
    case 'format':
      return error.params.format === 'email'
        ? 'must be a valid email address of at most 254 characters'
        : `must be ${TYPE_WORDS[column.type]}`;
    default:
      return `must be ${TYPE_WORDS[column.type]}`;
  }
}

/** Returns why a default value does not fit its column, or undefined when it does. */
export function checkDefault(column: ColumnDefinition, value: unknown): string | undefined {
  const validate = compileSchema(columnJsonSchema(column, { nullable: false }));
  return validate(value) ? undefined : describeColumnError(column, validate.errors![0]!, value);
}
