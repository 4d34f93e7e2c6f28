/**
 * What a refused schema change means to the caller: the storage engine's constraint error,
 * raised while existing rows were carried into the changed table, as a catalogue error.
 */
import { AppError } from '../errors/app-error.js';
import { StoreError } from '../store/types.js';

/**
 * The catalogue error for a StoreError raised while changing `table` (SCHEMA_CHANGE_REJECTED,
 * CONFLICT_UNIQUE, CONFLICT_REFERENCE); any other error is returned unchanged.
 */
export function translateChangeError(error: unknown, table: string): unknown {
  if (!(error instanceof StoreError)) return error;
  const column = error.column ? `"${error.column}"` : 'a column';
  switch (error.kind) {
    case 'not-null':
      return new AppError('SCHEMA_CHANGE_REJECTED', {
        message: `Existing rows of "${table}" have no value for ${column}, which the change makes required.`,
        suggestion: 'Give the column a default, make it optional, or fill the rows first.',
      });
    case 'unique':
      return new AppError('CONFLICT_UNIQUE', {
        message: `Existing rows of "${table}" have duplicate values in ${column}, so it cannot be unique.`,
        suggestion: 'Remove the duplicates first, or drop the unique option.',
      });
    case 'reference':
      return new AppError('CONFLICT_REFERENCE', {
        message: `Existing rows of "${table}" refer to rows that do not exist.`,
        suggestion: 'Fix or clear those values first.',
      });
    case 'check':
      return new AppError('SCHEMA_CHANGE_REJECTED', {
        message: `Existing values of "${table}" do not fit the new column types: ${error.message}`,
      });
    default:
      return error;
  }
}
