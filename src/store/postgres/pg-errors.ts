/** Translates node-postgres errors into StoreError kinds (the only place that reads SQLSTATE codes). */
import { StorageStartError, StoreError } from '../types.js';

interface PgDriverError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly column?: string;
  readonly constraint?: string;
  /** The server function that raised the error (stable across lc_messages). */
  readonly routine?: string;
}

// Errors of the socket, not of a statement: the database is unreachable or went away.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);

/** The column a constraint error names: `Key (email)=(...)` in the detail, or the error's own column. */
function columnOf(error: PgDriverError): string | undefined {
  if (error.column) return error.column;
  const key = /^Key \(([^),]+)\)=/.exec(error.detail ?? '')?.[1];
  if (key) return key.replace(/^"|"$/g, '');
  if (error.constraint?.endsWith('_pkey')) return 'id';
  return undefined;
}

/** Driver messages that mean the connection is gone or could not be made. */
const CONNECTION_LOST = new RegExp(
  [
    'Connection terminated',
    'connection timeout',
    'Client has encountered a connection error',
    'timeout exceeded when trying to connect',
    'Query read timeout',
  ].join('|'),
  'i',
);

/** True for errors that mean the server cannot be reached (as opposed to a statement failing). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as PgDriverError).code;
  if (
    code !== undefined &&
    (CONNECTION_CODES.has(code) ||
      code.startsWith('08') ||
      code === '57P01' ||
      code === '57P02' ||
      code === '57P03' ||
      code === '53300')
  )
    return true;
  // "Query read timeout": the client gave up on a server that stopped answering (pg-pool.ts).
  return CONNECTION_LOST.test(error.message);
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
  const make = (kind: StoreError['kind'], column?: string): StoreError =>
    new StoreError(kind, error.message, column, { cause: error });
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
    case '54000':
      // A search text too large for a tsvector: the row validator refuses those first; this is the
      // fence (rows written before their column was searched). Other program limits stay as they are.
      return /tsvector/.test(error.message) ? make('check') : error;
    case '40001': // serialization failure
    case '40P01': // deadlock
    case '55P03': // lock not available
    case '57014': // statement timeout / canceled
      return make('busy');
    case '0A000':
      // A prepared insert (pg-prepared.ts) run from a table definition that another process has
      // just changed (a column's type): the next request reads the new definition, whose text
      // and name differ. Asking the client to try again is the whole fix.
      // Told apart by the function that raises it ("cached plan must not change result type"):
      // messages are translated under another lc_messages.
      return pgError.routine === 'RevalidateCachedQuery' ? make('busy') : error;
    default:
      // Class 22: data exceptions (a value that does not fit its type, out of range, bad text).
      return code.startsWith('22') ? make('check', pgError.column) : error;
  }
}

/**
 * Why PostgreSQL could not be opened at start-up, in words an operator can act on: the bare
 * driver text ("database \"x\" does not exist", "connect ECONNREFUSED") names neither the
 * setting nor the fix. The URL's password is never repeated.
 */
export function explainStartupFailure(error: unknown, url: string): StorageStartError {
  const cause = rootCause(error);
  const code = (cause as PgDriverError).code ?? '';
  const parsed = new URL(url);
  const where = `${parsed.hostname}:${parsed.port || '5432'}`;
  const database =
    decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username) || 'postgres';
  const user = decodeURIComponent(parsed.username) || 'the default user';
  const form = 'postgres://USER:PASSWORD@HOST:PORT/DATABASE';
  const explained = (message: string, suggestion: string) =>
    new StorageStartError(`${message} (DATABASE_URL)`, suggestion, { cause });
  switch (code) {
    case '3D000':
      return explained(
        `PostgreSQL at ${where} has no database "${database}"`,
        `Create it (createdb -h ${parsed.hostname} -p ${parsed.port || '5432'} ${database}, or CREATE ` +
          `DATABASE "${database}"; in psql), or point DATABASE_URL at an existing database: ${form}.`,
      );
    case '28000':
    case '28P01':
      return explained(
        `PostgreSQL at ${where} refused user "${user}": ${cause instanceof Error ? cause.message : String(cause)}`,
        `Check the user and password in DATABASE_URL (${form}), or create ` +
          `the role in psql: CREATE ROLE "${user}" LOGIN PASSWORD '...';`,
      );
    case '42501':
      return explained(
        `User "${user}" may not create Rowbase's schemas in database "${database}" at ${where}`,
        `Grant it in psql: GRANT CREATE ON DATABASE "${database}" TO ` +
          `"${user}"; or use the database's owner in DATABASE_URL.`,
      );
    case 'ECONNREFUSED':
      return explained(
        `Nothing accepts connections at ${where}`,
        `Start PostgreSQL there, or fix the host and port in DATABASE_URL (${form}).`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return explained(
        `The host "${parsed.hostname}" cannot be found`,
        `Fix the host in DATABASE_URL (${form}), or check this machine's DNS.`,
      );
    default:
      return explained(
        `PostgreSQL at ${where} could not be opened: ${cause instanceof Error ? cause.message : String(cause)}`,
        `Check that PostgreSQL runs at ${where} and that DATABASE_URL (${form}) names ` +
          'a database this user may use; docs/deploy.md lists what Rowbase needs.',
      );
  }
}

/** The driver's own error under any StoreError wrapping. */
function rootCause(error: unknown): unknown {
  let current = error;
  while (current instanceof StoreError && current.cause !== undefined) current = current.cause;
  return current;
}
