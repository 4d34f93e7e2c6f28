/**
 * AppError: the one error type domain code throws for client-visible failures. The HTTP
 * error handler turns it into the `{ error: { code, message, suggestion } }` envelope.
 */
import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface AppErrorOptions {
  /** Overrides the catalogue's message, for example to name a column. */
  readonly message?: string;
  /** Overrides the catalogue's suggestion, for example to list the columns that exist. */
  readonly suggestion?: string;
  /** Extra headers (for example Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying fault, logged on the server, never sent. */
  readonly cause?: unknown;
  /**
   * The request parameter the error is about, sent as the envelope's optional `field` member
   * (docs/errors.md) so a client can tell refusals of one code apart without reading the message.
   */
  readonly field?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly suggestion: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly field: string | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const spec = ERROR_CODES[code];
    super(options.message ?? spec.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = spec.status;
    this.suggestion = options.suggestion ?? spec.suggestion;
    this.headers = options.headers ?? {};
    this.field = options.field;
  }
}

/** True when `error` is an AppError (works across module copies). */
export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
