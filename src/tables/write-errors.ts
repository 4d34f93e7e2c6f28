/**
 * Turns storage constraint failures of row writes into catalogue errors. A broken reference
 * is explained from the table definitions (which column, which table), the same on every
 * engine: SQLite's foreign-key error names neither.
 */
import { AppError } from '../errors/app-error.js';
import { sql } from '../query/sql-tree.js';
import { StoreError, type Executor } from '../store/types.js';
import type { CompiledTable } from './compiled-table.js';
import type { RowValues } from './row-validator.js';

/** Translates a StoreError from a row write (`where` prefixes the message, e.g. "row 3: "). */
export function translateWriteError(error: unknown, table: string, where = ''): unknown {
  if (!(error instanceof StoreError)) return error;
  const column = error.column;
  switch (error.kind) {
    case 'unique':
      return new AppError('CONFLICT_UNIQUE', {
        message: `${where}${column ?? 'a unique column'}: a row of "${table}" with this value already exists.`,
        suggestion:
          column === 'id'
            ? 'Omit id to have one generated, or update the existing row.'
            : `Use another value for "${column ?? 'the unique column'}", or update the existing row.`,
      });
    case 'reference':
      return new AppError('CONFLICT_REFERENCE', {
        message: `${where}the row refers to a row that does not exist, or rows of another table still refer to it.`,
      });
    case 'not-null':
    case 'check':
      return new AppError('VALIDATION_FAILED', {
        message: `${where}${column ?? 'a column'}: the value does not fit the column.`,
      });
    default:
      return error;
  }
}

const isReferenceFailure = (error: unknown): error is StoreError =>
  error instanceof StoreError && error.kind === 'reference';
const quote = (value: unknown): string =>
  JSON.stringify(String(value).length > 80 ? `${String(value).slice(0, 80)}...` : String(value));

/**
 * Like `translateWriteError`, for an insert or update of `values` into `table`: a broken
 * reference becomes CONFLICT_REFERENCE naming the column and the table it references. When
 * several reference columns are set and the engine did not say which failed, each is looked up
 * with `reader` (run only on this failure path). Never throws itself; resolves with the error to throw.
 */
export async function translateRowWriteError(
  error: unknown,
  reader: Executor,
  table: CompiledTable,
  values: RowValues,
  where = '',
): Promise<unknown> {
  if (!isReferenceFailure(error)) return translateWriteError(error, table.name, where);
  const set = table.definition.columns.filter(
    (c) => c.references && values[c.name] !== undefined && values[c.name] !== null,
  );
  let culprit = set.find((c) => c.name === error.column) ?? (set.length === 1 ? set[0] : undefined);
  for (const candidate of culprit ? [] : set) {
    const found = await reader
      .count({ kind: 'count', table: candidate.references!.table, where: sql.eq('id', values[candidate.name]) })
      .catch(() => 1);
    if (found === 0) {
      culprit = candidate;
      break;
    }
  }
  if (!culprit) {
    const names = set.map((c) => `${c.name} (→ "${c.references!.table}")`).join(', ');
    return new AppError('CONFLICT_REFERENCE', {
      message:
        `${where}a reference of this row of "${table.name}" names ` +
        `a row that does not exist${names ? `: one of ${names}` : ''}.`,
      suggestion: 'Create the referenced rows first, or refer to rows that exist.',
    });
  }
  const target = culprit.references!.table;
  return new AppError('CONFLICT_REFERENCE', {
    message:
      `${where}${culprit.name}: no row of "${target}" has id ${quote(values[culprit.name])} ` +
      `(column "${culprit.name}" of "${table.name}" references "${target}").`,
    suggestion:
      `Create that row of "${target}" first, or set "${culprit.name}" to the ` +
      `id of an existing row of "${target}"${culprit.required ? '' : ' (or null)'}.`,
  });
}

/**
 * Like `translateWriteError`, for the delete of row `rowId` of `table`: a refused delete
 * becomes CONFLICT_REFERENCE naming the table and column whose rows still refer to it
 * (`on_delete: "restrict"`), found by looking at `tables` and counting with `reader`.
 * Resolves with the error to throw.
 */
export async function translateDeleteError(
  error: unknown,
  reader: Executor,
  tables: Iterable<CompiledTable>,
  table: CompiledTable,
  rowId: string,
): Promise<unknown> {
  if (!isReferenceFailure(error)) return translateWriteError(error, table.name);
  const restricting = [...tables].flatMap((other) =>
    other.definition.columns
      .filter((c) => c.references?.table === table.name && c.references.on_delete === 'restrict')
      .map((column) => ({ other: other.name, column: column.name })),
  );
  for (const { other, column } of restricting) {
    const referring = await reader.count({ kind: 'count', table: other, where: sql.eq(column, rowId) }).catch(() => 0);
    if (referring > 0) {
      return new AppError('CONFLICT_REFERENCE', {
        // No count: the caller may not be allowed to list that table.
        message:
          `Rows of "${other}" still refer to this row of "${table.name}" ` +
          `through their column "${column}" (on_delete: "restrict").`,
        suggestion:
          `Delete those rows of "${other}" or change their "${column}" first, ` +
          `or redeclare "${other}"."${column}" with "on_delete": "cascade" or "set_null".`,
      });
    }
  }
  return new AppError('CONFLICT_REFERENCE', {
    message:
      `Rows of another table still refer to this row of "${table.name}" ` +
      '(directly or through a cascade), with on_delete: "restrict".',
    suggestion:
      'Delete the rows that refer to it first' +
      (restricting.length > 0
        ? `: tables ${restricting.map((r) => `"${r.other}" (column "${r.column}")`).join(', ')}`
        : '') +
      '.',
  });
}
