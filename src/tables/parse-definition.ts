/**
 * Checks a submitted table definition (the body of PUT /p/{id}/v1/tables/{table}) and turns
 * it into a TableDefinition. Cross-table checks (references, one auth table) and rule
 * expressions are checked by the schema service, which knows the other tables.
 */
import { AppError } from '../errors/app-error.js';
import {
  AUTH_COLUMN_NAMES,
  COLUMN_TYPES,
  defaultRules,
  NAME_PATTERN,
  RULE_OPERATIONS,
  SYSTEM_COLUMN_NAMES,
  type ColumnDefinition,
  type ColumnType,
  type OnDelete,
  type Rule,
  type RuleOperation,
  type TableDefinition,
} from '../schema/definition.js';
import { checkDefault } from './column-schema.js';
import { BATCH_TABLE_NAME } from './batch-request.js';
import { normaliseTimestamp } from '../lib/timestamps.js';
import { hasUnpairedSurrogate, UNPAIRED_SURROGATE_SUGGESTION } from '../lib/unpaired-surrogate.js';

const TABLE_KEYS = new Set(['columns', 'auth_table', 'verify_email', 'rules', 'indexes', 'search']);
const COLUMN_KEYS = new Set([
  'name',
  'type',
  'required',
  'unique',
  'default',
  'references',
  'max_length',
  'enum',
  'min',
  'max',
]);
const MAX_COLUMNS = 200;
const MAX_INDEXES = 32;

function fail(message: string, suggestion = 'See docs/schema.md for the table definition format.'): never {
  throw new AppError('VALIDATION_FAILED', { message, suggestion });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a table name; throws VALIDATION_FAILED. */
export function checkTableName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    fail(
      `table name "${name}" must match ^[a-z][a-z0-9_]{0,62}$.`,
      'Use lower-case letters, digits and underscores, starting with a letter, e.g. "tasks".',
    );
  }
  // SQLite owns every name starting with sqlite_ (its catalogue tables); CREATE TABLE would fail.
  if (name.startsWith('sqlite_'))
    fail(
      `table name "${name}" is reserved: names starting with "sqlite_" belong to the database engine.`,
      'Choose another name, e.g. "tasks".',
    );
}

/**
 * Checks the name of a table about to be created; throws VALIDATION_FAILED for a name the data
 * API's own paths take (POST /api/batch). A table created before the name was reserved keeps it.
 */
export function checkNewTableName(name: string): void {
  if (name === BATCH_TABLE_NAME)
    fail(
      `table name "${name}" is reserved: POST /p/{id}/api/${name} is the batch endpoint.`,
      'Choose another name, e.g. "batches" or "job_batches".',
    );
}

/** Parses a table definition body; throws VALIDATION_FAILED naming the first problem. */
export function parseDefinition(name: string, body: unknown): TableDefinition {
  checkTableName(name);
  if (!isObject(body))
    fail('the body must be a JSON object with "columns".', 'Send {"columns": [{"name": "title", "type": "text"}]}.');
  for (const key of Object.keys(body))
    if (!TABLE_KEYS.has(key))
      fail(`unknown field "${key}" in the table definition.`, `Allowed fields: ${[...TABLE_KEYS].join(', ')}.`);

  const authTable = body.auth_table ?? false;
  const verifyEmail = body.verify_email ?? false;
  if (typeof authTable !== 'boolean') fail('auth_table must be true or false.');
  if (typeof verifyEmail !== 'boolean') fail('verify_email must be true or false.');
  if (verifyEmail && !authTable)
    fail('verify_email needs auth_table: true.', 'Set "auth_table": true, or drop verify_email.');

  const rawColumns = body.columns ?? [];
  if (!Array.isArray(rawColumns)) fail('columns must be an array.');
  if (rawColumns.length > MAX_COLUMNS) fail(`a table has at most ${MAX_COLUMNS} columns.`);
  const reserved = new Set<string>([
    ...SYSTEM_COLUMN_NAMES,
    'password_version',
    ...(authTable ? AUTH_COLUMN_NAMES : []),
  ]);
  const seen = new Set<string>();
  const columns = rawColumns.map((raw, index) => {
    const column = parseColumn(raw, index);
    if (reserved.has(column.name))
      fail(
        `columns[${index}]: "${column.name}" is a reserved name.`,
        `Reserved: ${[...reserved].join(', ')}; they exist already.`,
      );
    // Every row of the data API may carry "expand" (contract §13): a column of that name would be replaced by it.
    if (column.name === 'expand')
      fail(
        `columns[${index}]: "expand" is a reserved name: answers put related rows under "expand".`,
        'Choose another name, e.g. "expanded" or "details".',
      );
    if (seen.has(column.name)) fail(`columns[${index}]: "${column.name}" is declared twice.`);
    seen.add(column.name);
    return column;
  });

  const search = parseSearchColumns(body.search, columns);
  return Object.freeze({
    name,
    columns: Object.freeze(columns),
    auth_table: authTable,
    verify_email: verifyEmail,
    rules: parseRules(body.rules, { authTable }),
    indexes: parseIndexes(
      body.indexes,
      new Set([...seen, ...SYSTEM_COLUMN_NAMES, ...(authTable ? ['email', 'email_verified'] : [])]),
    ),
    ...(search.length > 0 && { search }),
  });
}

function parseColumn(raw: unknown, index: number): ColumnDefinition {
  const at = `columns[${index}]`;
  if (!isObject(raw)) fail(`${at} must be an object with name and type.`);
  for (const key of Object.keys(raw))
    if (!COLUMN_KEYS.has(key))
      fail(`${at}: unknown option "${key}".`, `Column options: ${[...COLUMN_KEYS].join(', ')}.`);
  const name = raw.name;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) fail(`${at}: name must match ^[a-z][a-z0-9_]{0,62}$.`);
  const type = raw.type;
  if (typeof type !== 'string' || !COLUMN_TYPES.includes(type as ColumnType)) {
    fail(`${name}: type must be one of ${COLUMN_TYPES.join(', ')}.`);
  }
  const column: { -readonly [K in keyof ColumnDefinition]: ColumnDefinition[K] } = {
    name,
    type: type as ColumnType,
    required: optionalBoolean(raw.required, `${name}.required`),
    unique: optionalBoolean(raw.unique, `${name}.unique`),
  };
  if (column.unique && (type === 'json' || type === 'boolean')) fail(`${name}: a ${type} column cannot be unique.`);

  if (raw.max_length !== undefined) {
    if (type !== 'text') fail(`${name}: max_length applies to text columns only.`);
    if (!Number.isInteger(raw.max_length) || (raw.max_length as number) < 1)
      fail(`${name}: max_length must be a positive whole number.`);
    column.max_length = raw.max_length as number;
  }
  if (raw.enum !== undefined) {
    if (type !== 'text') fail(`${name}: enum applies to text columns only.`);
    if (!Array.isArray(raw.enum) || raw.enum.length === 0 || raw.enum.some((v) => typeof v !== 'string'))
      fail(`${name}: enum must be a non-empty array of strings.`);
    // A definition read from a file (schema apply, import) did not pass the HTTP body check.
    if ((raw.enum as string[]).some(hasUnpairedSurrogate))
      fail(
        `${name}: an enum value holds an unpaired UTF-16 surrogate, which is not a character.`,
        UNPAIRED_SURROGATE_SUGGESTION,
      );
    column.enum = Object.freeze([...new Set(raw.enum as string[])]);
  }
  for (const bound of ['min', 'max'] as const) {
    if (raw[bound] === undefined) continue;
    if (type !== 'integer' && type !== 'number') fail(`${name}: ${bound} applies to integer and number columns only.`);
    // JSON's 1e400 reads as Infinity: refused like any other non-number (it could not be stored).
    if (typeof raw[bound] !== 'number' || !Number.isFinite(raw[bound]))
      fail(`${name}: ${bound} must be a finite number.`);
    column[bound] = raw[bound] as number;
  }
  if (column.min !== undefined && column.max !== undefined && column.min > column.max)
    fail(`${name}: min is greater than max.`);

  if (raw.references !== undefined) {
    const ref = raw.references;
    if (!isObject(ref) || typeof ref.table !== 'string' || !NAME_PATTERN.test(ref.table))
      fail(`${name}: references must be {"table": "<table>", "on_delete": "cascade|restrict|set_null"}.`);
    if (type !== 'text') fail(`${name}: a column with references must have type text (row ids are text).`);
    const onDelete = ref.on_delete ?? 'restrict';
    if (onDelete !== 'cascade' && onDelete !== 'restrict' && onDelete !== 'set_null')
      fail(`${name}: on_delete must be cascade, restrict or set_null.`);
    if (onDelete === 'set_null' && column.required)
      fail(`${name}: on_delete set_null needs a column that is not required.`);
    for (const key of Object.keys(ref))
      if (key !== 'table' && key !== 'on_delete') fail(`${name}: unknown option "references.${key}".`);
    column.references = Object.freeze({ table: ref.table, on_delete: onDelete as OnDelete });
  }
  if (raw.default !== undefined) {
    if (raw.default !== null) {
      const problem = checkDefault(column, raw.default);
      if (problem) fail(`${name}: the default ${problem}.`);
    }
    column.default = normaliseDefault(column.type, raw.default);
  }
  return Object.freeze(column);
}

function normaliseDefault(type: ColumnType, value: unknown): unknown {
  return type === 'timestamp' && typeof value === 'string' ? normaliseTimestamp(value) : value;
}

function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') fail(`${field} must be true or false.`);
  return value;
}

function parseRules(raw: unknown, kind: { readonly authTable: boolean }): Readonly<Record<RuleOperation, Rule>> {
  const rules: Record<RuleOperation, Rule> = { ...defaultRules(kind) };
  if (raw === undefined) return Object.freeze(rules);
  if (!isObject(raw)) fail('rules must be an object such as {"list": "", "view": null}.');
  for (const [operation, rule] of Object.entries(raw)) {
    if (!RULE_OPERATIONS.includes(operation as RuleOperation))
      fail(`rules.${operation} is not an operation.`, `Operations: ${RULE_OPERATIONS.join(', ')}.`);
    if (rule !== null && typeof rule !== 'string')
      fail(`rules.${operation} must be null, "" or a filter expression string.`);
    rules[operation as RuleOperation] = rule as Rule;
  }
  return Object.freeze(rules);
}

function parseIndexes(raw: unknown, indexable: ReadonlySet<string>): readonly (readonly string[])[] {
  if (raw === undefined) return Object.freeze([]);
  if (!Array.isArray(raw) || raw.length > MAX_INDEXES)
    fail(`indexes must be an array of at most ${MAX_INDEXES} column lists.`);
  const unique = new Map<string, readonly string[]>();
  raw.forEach((index, i) => {
    if (!Array.isArray(index) || index.length === 0 || index.length > 8 || index.some((c) => typeof c !== 'string')) {
      fail(`indexes[${i}] must be a list of 1 to 8 column names.`);
    }
    for (const column of index as string[]) {
      if (!indexable.has(column))
        fail(`indexes[${i}]: unknown column "${column}".`, `Columns: ${[...indexable].sort().join(', ')}.`);
    }
    if (new Set(index).size !== index.length) fail(`indexes[${i}] names a column twice.`);
    unique.set((index as string[]).join(','), Object.freeze([...(index as string[])]));
  });
  return Object.freeze([...unique.values()]);
}

/** Most columns one table's search reads. */
const MAX_SEARCH_COLUMNS = 16;

/**
 * `search`: the declared text columns full-text search reads (contract §18); an empty list
 * declares none. Throws VALIDATION_FAILED for a non-list, an unknown, repeated or non-text column.
 */
function parseSearchColumns(raw: unknown, columns: readonly ColumnDefinition[]): readonly string[] {
  if (raw === undefined || raw === null) return Object.freeze([]);
  const text = columns.filter((c) => c.type === 'text').map((c) => c.name);
  const suggestion = text.length > 0 ? `Text columns: ${text.join(', ')}.` : 'Declare a text column to search first.';
  if (!Array.isArray(raw) || raw.length > MAX_SEARCH_COLUMNS || raw.some((c) => typeof c !== 'string'))
    fail(
      `search must be a list of at most ${MAX_SEARCH_COLUMNS} text column names, e.g. ["title", "body"].`,
      suggestion,
    );
  raw.forEach((name: string, i) => {
    const column = columns.find((c) => c.name === name);
    if (!column) fail(`search[${i}]: unknown column "${name}".`, suggestion);
    if (column.type !== 'text')
      fail(`search[${i}]: "${name}" is a ${column.type} column; search reads text columns only.`, suggestion);
    if (raw.indexOf(name) !== i) fail(`search[${i}] names "${name}" twice.`, suggestion);
  });
  return Object.freeze([...(raw as string[])]);
}
