/**
 * The one error class of the SDK. Every failure a method can have, from the server's error
 * envelope to a dropped connection, reaches the caller as a `RowbaseError`.
 */

import type { ErrorCode } from './error-codes.js';

export type { ErrorCode };

/** Codes the SDK makes itself (the server's codes are listed in Rowbase's docs/errors.md). */
export type ClientErrorCode =
  | 'NETWORK_ERROR'
  | 'ABORTED'
  | 'INVALID_RESPONSE'
  | 'INVALID_CLIENT_OPTIONS'
  | 'INVALID_BODY'
  | 'NOT_SIGNED_IN';

/** The fields a RowbaseError is built from. */
export interface RowbaseErrorInit {
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  readonly message: string;
  readonly suggestion: string;
  readonly cause?: unknown;
  readonly retryAfter?: number | undefined;
  readonly requestId?: string | undefined;
  readonly field?: string | undefined;
}

/**
 * An error answered by the server (`status` is the HTTP status and `code` the catalogue code,
 * such as `VALIDATION_FILTER`) or made by the SDK (`status` 0 and one of `ClientErrorCode`).
 * `suggestion` says what to do next; `cause` holds the underlying error when there is one
 * (for `NETWORK_ERROR`, the `TypeError` that `fetch` threw).
 */
export class RowbaseError extends Error {
  /** The HTTP status, or 0 when no answer was received. */
  readonly status: number;
  /**
   * The catalogue code (UPPER_SNAKE_CASE): one of `ErrorCode` (generated from the server's
   * catalogue) or `ClientErrorCode`; any other string still type-checks, for a newer server.
   */
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  /** What to do about it. */
  readonly suggestion: string;
  /** Seconds to wait, from the Retry-After header of a 429 or 503. */
  readonly retryAfter: number | undefined;
  /** The server's X-Request-Id for this request, to quote in a bug report. */
  readonly requestId: string | undefined;
  /**
   * The request parameter the error is about, when the server names one (its envelope's
   * `field` member): `expand` for a refused `expand=`.
   */
  readonly field: string | undefined;

  constructor(init: RowbaseErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'RowbaseError';
    this.status = init.status;
    this.code = init.code;
    this.suggestion = init.suggestion;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.field = init.field;
  }
}

/** True when `error` is a RowbaseError, optionally with this code. */
export function isRowbaseError(
  error: unknown,
  code?: ErrorCode | ClientErrorCode | (string & {}),
): error is RowbaseError {
  return error instanceof RowbaseError && (code === undefined || error.code === code);
}
