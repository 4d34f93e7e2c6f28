/** Turns storage constraint failures of row writes into catalogue errors. */
import { AppError } from '../errors/app-error.js';
import { StoreError } from '../store/types.js';

/** Translates a StoreError from a row write (`where` prefixes the message, e.g. "row 3: "). */
export function translateWriteError(error: unknown, table: string, where = ''): unknown {
  if (!(error instanceof StoreError)) return error;
  const column = error.column;
  switch (error.kind) {
    case 'unique':
      return new AppError('CONFLICT_UNIQUE', {
        message: `${where}${column ?? 'a unique column'}: a row of "${table}" with this value already exists.`,
        suggestion: column === 'id' ? 'Omit id to have one generated, or update the existing row.' : `Use another value for "${column ?? 'the unique column'}", or update the existing row.`,
      });
    case 'reference':
      return new AppError('CONFLICT_REFERENCE', {
        message: `${where}the row refers to a row that does not exist, or rows of another table still refer to it.`,
      });
    case 'not-null':
    case 'check':
      return new AppError('VALIDATION_FAILED', { message: `${where}${column ?? 'a column'}: the value does not fit the column.` });
    default:
      return error;
  }
}
