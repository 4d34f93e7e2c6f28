/**
 * The one error class of the SDK. Every failure a method can have, from the server's error
 * envelope to a dropped connection, reaches the caller as a `RowbaseError`.
 */

/** Codes the SDK makes itself (the server's codes are listed in Rowbase's docs/errors.md). */
export type ClientErrorCode = 'NETWORK_ERROR' | 'ABORTED' | 'INVALID_RESPONSE' | 'INVALID_CLIENT_OPTIONS' | 'INVALID_BODY' | 'NOT_SIGNED_IN';

/** The fields a RowbaseError is built from. */
export interface RowbaseErrorInit {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly suggestion: string;
  readonly cause?: unknown;
  readonly retryAfter?: number | undefined;
  readonly requestId?: string | undefined;
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
  /** The catalogue code (UPPER_SNAKE_CASE). */
  readonly code: string;
  /** What to do about it. */
  readonly suggestion: string;
  /** Seconds to wait, from the Retry-After header of a 429 or 503. */
  readonly retryAfter: number | undefined;
  /** The server's X-Request-Id for this request, to quote in a bug report. */
  readonly requestId: string | undefined;

  constructor(init: RowbaseErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'RowbaseError';
    this.status = init.status;
    this.code = init.code;
    this.suggestion = init.suggestion;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
  }
}

/** True when `error` is a RowbaseError, optionally with this code. */
export function isRowbaseError(error: unknown, code?: string): error is RowbaseError {
  return error instanceof RowbaseError && (code === undefined || error.code === code);
}
