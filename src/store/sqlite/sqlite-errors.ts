/** Translates better-sqlite3 errors into StoreError kinds (the only place that reads SQLite codes). */
import { StoreError } from '../types.js';

/** Returns a StoreError for constraint and lock failures, or the error unchanged. */
export function translateSqliteError(error: unknown): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  const code = (error as unknown as { code: string }).code;
  const column = /constraint failed: [^.\s]+\.([a-z0-9_]+)/i.exec(error.message)?.[1];
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return new StoreError('unique', error.message, column, { cause: error });
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return new StoreError('reference', error.message, column, { cause: error });
    case 'SQLITE_CONSTRAINT_TRIGGER':
      // ON DELETE RESTRICT fires as a trigger, not as a deferred foreign-key check.
      if (/FOREIGN KEY constraint failed/i.test(error.message))
        return new StoreError('reference', error.message, column, { cause: error });
      return error;
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return new StoreError('not-null', error.message, column, { cause: error });
    case 'SQLITE_CONSTRAINT_CHECK':
    case 'SQLITE_CONSTRAINT_DATATYPE':
      return new StoreError(
        'check',
        error.message,
        /column [^.\s]+\.([a-z0-9_]+)/i.exec(error.message)?.[1] ?? column,
        { cause: error },
      );
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new StoreError('busy', error.message, undefined, { cause: error });
    default:
      return error;
  }
}
