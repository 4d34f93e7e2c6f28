/**
 * Per-table row validators, compiled once per table definition (never per request): create
 * (required columns, defaults filled) and update (partial). They return the normalised row
 * values (timestamps in UTC) or throw VALIDATION_FAILED / VALIDATION_UNKNOWN_COLUMN.
 */
import type { ValidateFunction } from 'ajv';
import { AppError } from '../errors/app-error.js';
import { compileSchema, columnJsonSchema, describeColumnError } from './column-schema.js';
import { closestName } from '../lib/edit-distance.js';
import { normaliseTimestamp } from '../lib/timestamps.js';
import { publicColumns, type ColumnDefinition, type TableDefinition } from '../schema/definition.js';

export type RowValues = Record<string, unknown>;

export interface RowValidators {
  /** Checks a create body; fills defaults. `index` names the row of a bulk request in messages. */
  create(body: unknown, index?: number): RowValues;
  /** Checks an update body (any subset of writable columns). */
  update(body: unknown): RowValues;
}

const READ_ONLY = new Set(['created_at', 'updated_at']);
export const ROW_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

type ColumnRules = Pick<ColumnDefinition, 'type' | 'max_length' | 'enum' | 'min' | 'max'>;

/**
 * What one kind of write checks: its compiled schema, the names it may set, whether declared defaults fill the gaps.
 */
interface CheckMode {
  readonly validate: ValidateFunction;
  readonly writable: ReadonlySet<string>;
  readonly fillsDefaults: boolean;
}

/** Compiles the validators of a table. */
export function buildRowValidators(table: TableDefinition): RowValidators {
  const rules = new Map<string, ColumnRules>(table.columns.map((c) => [c.name, c]));
  const properties: Record<string, object> = {};
  for (const column of table.columns)
    properties[column.name] = columnJsonSchema(column, { nullable: !column.required });
  if (table.auth_table) {
    rules.set('email', { type: 'text', max_length: 254 });
    rules.set('password', { type: 'text' });
    rules.set('email_verified', { type: 'boolean' });
    properties.email = { type: 'string', format: 'email' };
    properties.password = { type: 'string', wellFormed: true };
    properties.email_verified = { type: 'boolean' };
  }
  const required = table.columns.filter((c) => c.required && c.default === undefined).map((c) => c.name);
  if (table.auth_table) required.unshift('email', 'password');

  const createSchema = {
    type: 'object',
    additionalProperties: false,
    properties: { ...properties, id: { type: 'string', pattern: ROW_ID_PATTERN } },
    required,
  };
  const updateSchema = { type: 'object', additionalProperties: false, properties };
  const validateCreate = compileSchema(createSchema);
  const validateUpdate = compileSchema(updateSchema);
  const timestamps = table.columns.filter((c) => c.type === 'timestamp').map((c) => c.name);
  const defaults = table.columns.filter((c) => c.default !== undefined);
  const columnList = publicColumns(table)
    .map((c) => c.name)
    .join(', ');
  const updateColumns = new Set(Object.keys(properties));
  const searchLimit = table.search ? Math.floor(SEARCH_TEXT_BYTES / table.search.length) : 0;
  // A create may name its id and gets the declared defaults; an update changes only what it names.
  const create: CheckMode = {
    validate: validateCreate,
    writable: new Set([...updateColumns, 'id']),
    fillsDefaults: true,
  };
  const update: CheckMode = { validate: validateUpdate, writable: updateColumns, fillsDefaults: false };

  const check = (body: unknown, where: string, { validate, writable, fillsDefaults }: CheckMode): RowValues => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new AppError('VALIDATION_FAILED', {
        message: `${where}the body must be a JSON object of column values.`,
        suggestion:
          `Send an object such as {"${table.columns[0]?.name ?? 'column'}": ` +
          `...}. Columns of "${table.name}": ${columnList}.`,
      });
    }
    for (const key of Object.keys(body)) {
      if (READ_ONLY.has(key) || (key === 'id' && !writable.has('id'))) {
        throw new AppError('VALIDATION_FAILED', {
          message: `${where}${key}: is read-only; the server sets it.`,
          suggestion: `Remove "${key}" from the body.`,
        });
      }
    }
    // Unknown names first: a misspelt required column must be reported as the typo it is, not as missing.
    for (const key of Object.keys(body))
      if (!writable.has(key)) throw unknownColumn(key, writable, table.name, columnList, where);
    if (!validate(body)) throw toAppError(body, validate, rules, where);
    if (searchLimit) checkSearchText(body as RowValues, table.search!, searchLimit, where);
    const values: RowValues = { ...(body as RowValues) };
    if (fillsDefaults)
      for (const column of defaults) if (!(column.name in values)) values[column.name] = column.default;
    for (const name of timestamps) {
      const value = values[name];
      if (typeof value === 'string') values[name] = normaliseTimestamp(value);
    }
    return values;
  };

  return {
    create: (body, index) => check(body, index === undefined ? '' : `row ${index}: `, create),
    update: (body) => check(body, '', update),
  };
}

/**
 * UTF-8 bytes of searched text a row may hold, shared by its search columns: PostgreSQL's
 * tsvector holds at most 1 MB, and a text of distinct short words takes under three times its
 * size there. Both engines refuse alike, so a row never fits one and not the other.
 */
export const SEARCH_TEXT_BYTES = 256 * 1024;

/** The first search column of `values` holding more than `limit` UTF-8 bytes, if any. */
function oversizedSearchColumn(values: RowValues, columns: readonly string[], limit: number): string | undefined {
  return columns.find((column) => {
    const value = values[column];
    // A UTF-16 unit is at most 3 UTF-8 bytes (a pair of them 4): only long texts need counting.
    return typeof value === 'string' && value.length * 3 > limit && Buffer.byteLength(value) > limit;
  });
}

/** Throws VALIDATION_FAILED for a search column holding more than `limit` bytes. */
function checkSearchText(values: RowValues, columns: readonly string[], limit: number, where: string): void {
  const column = oversizedSearchColumn(values, columns, limit);
  if (column === undefined) return;
  throw new AppError('VALIDATION_FAILED', {
    message: `${where}${column}: a search column holds at most ${limit} bytes of UTF-8 text.`,
    suggestion: `Shorten "${column}", or take it out of the table's search columns.`,
  });
}

/** Why a stored row does not fit its table: the first column at fault and the reason. */
export interface StoredRowProblem {
  readonly column: string;
  readonly reason: string;
}

/**
 * A check of whole stored rows (an import's rows, every physical column present) against the
 * table's declared columns: type, required, finite numbers, enum, length, range, the searched
 * text's size. Returns the first problem, or undefined when the row fits. Never throws.
 */
export function buildStoredRowCheck(table: TableDefinition): (values: RowValues) => StoredRowProblem | undefined {
  const checks = table.columns.map((column) => ({
    column,
    validate: compileSchema(columnJsonSchema(column, { nullable: !column.required })),
  }));
  const searchLimit = table.search ? Math.floor(SEARCH_TEXT_BYTES / table.search.length) : 0;
  return (values) => {
    if (typeof values.id !== 'string' || values.id === '')
      return { column: 'id', reason: 'must be a non-empty string' };
    for (const { column, validate } of checks) {
      const value = values[column.name] ?? null;
      if (validate(value)) continue;
      return {
        column: column.name,
        reason:
          value === null
            ? 'is required, but the value is null'
            : describeColumnError(column, validate.errors![0]!, value),
      };
    }
    const oversized = searchLimit ? oversizedSearchColumn(values, table.search!, searchLimit) : undefined;
    if (oversized)
      return { column: oversized, reason: `a search column holds at most ${searchLimit} bytes of UTF-8 text` };
    return undefined;
  };
}

/** VALIDATION_UNKNOWN_COLUMN for `column`, suggesting the closest writable column when one is near. */
function unknownColumn(
  column: string,
  writable: ReadonlySet<string>,
  table: string,
  columnList: string,
  where: string,
): AppError {
  const closest = closestName(column, writable);
  return new AppError('VALIDATION_UNKNOWN_COLUMN', {
    message: `${where}table "${table}" has no column "${column}".`,
    suggestion:
      `${closest ? `Did you mean "${closest}"? ` : ''}Columns of "${table}": ` +
      `${columnList}. Remove "${column}" or add it with PATCH /p/{id}/v1/tables/${table} ` +
      `and {"columns": [{"name": "${column}", "type": "text"}]} (or the type it needs).`,
  });
}

function toAppError(
  body: object,
  validate: ValidateFunction,
  rules: ReadonlyMap<string, ColumnRules>,
  where: string,
): AppError {
  // Unknown columns were refused before validation, so additionalProperties cannot come first here.
  const error = validate.errors![0]!;
  if (error.keyword === 'required') {
    const column = String(error.params.missingProperty);
    return new AppError('VALIDATION_FAILED', {
      message: `${where}${column}: is required.`,
      suggestion: `Send a value for "${column}".`,
    });
  }
  const column = error.instancePath.split('/')[1] ?? '';
  if (column === 'id') {
    return new AppError('VALIDATION_FAILED', {
      message: `${where}id: must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-".`,
      suggestion: 'Omit id to have a UUIDv7 generated.',
    });
  }
  const rule = rules.get(column);
  const reason = rule ? describeColumnError(rule, error, (body as RowValues)[column]) : (error.message ?? 'is invalid');
  return new AppError('VALIDATION_FAILED', {
    message: `${where}${column}: ${reason}.`,
    suggestion: `Fix the value of "${column}" and retry.`,
  });
}
