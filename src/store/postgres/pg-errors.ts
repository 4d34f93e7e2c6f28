/** Translates node-postgres errors into StoreError kinds (the only place that reads SQLSTATE codes). */
import { StoreError } from '../types.js';

interface PgDriverError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly column?: string;
  readonly constraint?: string;
}

// Errors of the socket, not of a statement: the database is unreachable or went away.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'EAI_AGAIN']);

/** The column a constraint error names: `Key (email)=(...)` in the detail, or the error's own column. */
function columnOf(error: PgDriverError): string | undefined {
  if (error.column) return error.column;
  const key = /^Key \(([^),]+)\)=/.exec(error.detail ?? '')?.[1];
  if (key) return key.replace(/^"|"$/g, '');
  if (error.constraint?.endsWith('_pkey')) return 'id';
  return undefined;
}

/** True for errors that mean the server cannot be reached (as opposed to a statement failing). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as PgDriverError).code;
  if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300')) return true;
  // "Query read timeout": the client gave up on a server that stopped answering (pg-pool.ts).
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(error.message);
}

/** True when the pool had no free connection within its timeout (every connection busy, or none could be opened). */
function isPoolTimeout(error: Error): boolean {
  return /timeout exceeded when trying to connect/i.test(error.message);
}

/** Returns a StoreError for constraint, lock and connection failures, or the error unchanged. */
export function translatePgError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreError) return error;
  const pgError = error as PgDriverError;
  const code = pgError.code ?? '';
  const make = (kind: StoreError['kind'], column?: string): StoreError => new StoreError(kind, error.message, column, { cause: error });
  if (isPoolTimeout(error)) return make('busy');
  if (isConnectionError(error)) return make('unavailable');
  switch (code) {
    case '23505':
      return make('unique', columnOf(pgError));
    case '23503':
      return make('reference', columnOf(pgError));
    case '23502':
      return make('not-null', columnOf(pgError));
    case '23514':
      return make('check', columnOf(pgError));
    case '40001': // serialization failure
    case '40P01': // deadlock
    case '55P03': // lock not available
    case '57014': // statement timeout / canceled
      return make('busy');
    default:
      // Class 22: data exceptions (a value that does not fit its type, out of range, bad text).
      return code.startsWith('22') ? make('check', pgError.column) : error;
  }
}
