/**
 * The body of PATCH /p/{id}/v1/tables/{table} applied to the table as stored: only what the
 * body names changes (contract §2). The result is a whole definition body, which
 * `parseDefinition` then checks exactly as it checks a PUT. Pure.
 */
import { AppError } from '../errors/app-error.js';
import type { TableDefinition } from '../schema/definition.js';

const PATCH_KEYS = new Set(['columns', 'auth_table', 'verify_email', 'rules', 'indexes', 'search']);

function fail(message: string, suggestion: string): never {
  throw new AppError('VALIDATION_FAILED', { message, suggestion });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The definition body `before` becomes under `patch`: `rules` merged per operation,
 * `columns` added or changed by name (options merged into the named column; an option set to
 * null is removed; columns not named are kept, in their order), `indexes`, `auth_table` and
 * `verify_email` and `search` replaced when given. Throws VALIDATION_FAILED for a malformed patch.
 */
export function applyTablePatch(before: TableDefinition, patch: unknown): Record<string, unknown> {
  if (!isObject(patch))
    fail(
      'the body must be a JSON object naming what to change.',
      'Send e.g. {"rules": {"list": ""}} or {"columns": [{"name": "note", "type": "text"}]}.',
    );
  for (const key of Object.keys(patch)) {
    if (!PATCH_KEYS.has(key))
      fail(`unknown field "${key}" in the table change.`, `Allowed fields: ${[...PATCH_KEYS].join(', ')}.`);
  }
  return {
    columns: patch.columns === undefined ? before.columns : mergeColumns(before, patch.columns),
    auth_table: patch.auth_table ?? before.auth_table,
    verify_email: patch.verify_email ?? before.verify_email,
    rules: patch.rules === undefined ? before.rules : mergeRules(before, patch.rules),
    indexes: patch.indexes === undefined ? before.indexes : patch.indexes,
    // Replaced when given (null or [] declares none); kept otherwise.
    search: patch.search === undefined ? before.search : patch.search,
  };
}

function mergeRules(before: TableDefinition, rules: unknown): Record<string, unknown> {
  if (!isObject(rules))
    fail(
      'rules must be an object of the operations to change, such as {"list": ""}.',
      'Name only the operations to change; the others keep their rule.',
    );
  return { ...before.rules, ...rules };
}

function mergeColumns(before: TableDefinition, columns: unknown): Record<string, unknown>[] {
  if (!Array.isArray(columns))
    fail(
      'columns must be an array of the columns to add or change.',
      'Send e.g. {"columns": [{"name": "note", "type": "text"}]}; columns not named keep their definition.',
    );
  const merged = new Map<string, Record<string, unknown>>(before.columns.map((c) => [c.name, { ...c }]));
  const named = new Set<string>();
  columns.forEach((column, index) => {
    if (!isObject(column) || typeof column.name !== 'string') {
      fail(
        `columns[${index}] must be an object with the name of the column to add or change.`,
        'Send e.g. {"name": "note", "type": "text"}.',
      );
    }
    if (named.has(column.name))
      fail(
        `columns[${index}]: "${column.name}" is named twice.`,
        'Name each column once, with every option to change.',
      );
    named.add(column.name);
    const changed: Record<string, unknown> = { ...merged.get(column.name) };
    // JSON merge patch (RFC 7396): null removes an option (max_length, default, references...).
    for (const [option, value] of Object.entries(column)) {
      if (value === null) delete changed[option];
      else changed[option] = value;
    }
    merged.set(column.name, changed);
  });
  return [...merged.values()];
}
