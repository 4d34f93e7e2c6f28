/**
 * Error responses of the documented operations, generated from the error catalogue
 * (src/errors/codes.ts): each operation names the codes it can answer, grouped by their
 * catalogue status, and every response carries the error envelope with `code` limited to
 * those codes. A catalogue code that no list below claims is assumed possible on every
 * operation, so a code added to the catalogue shows up in the document without an edit here.
 */
import { ERROR_CODES, type ErrorCode } from '../errors/codes.js';

/**
 * Codes any request to a project path can meet: unknown project, HTTP faults, outages, and a
 * method the path does not take (a row id route given the reserved `bulk` segment).
 */
const ANY_REQUEST: readonly ErrorCode[] = [
  'PROJECT_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'BAD_REQUEST',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

/** Codes of operations that read a JSON body. */
export const BODY: readonly ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

/** Codes of the data API's credential check (contract §4). */
export const DATA_CREDENTIALS: readonly ErrorCode[] = [
  'AUTH_REQUIRED',
  'AUTH_INVALID_KEY',
  'AUTH_INVALID_TOKEN',
  'AUTH_TOKEN_EXPIRED',
];

/** Codes of the bearer-only auth endpoints (me, logout, change-password, resend-verification). */
export const BEARER: readonly ErrorCode[] = ['AUTH_REQUIRED', 'AUTH_INVALID_TOKEN', 'AUTH_TOKEN_EXPIRED'];

/** Codes of row writes (create, bulk, update). */
export const ROW_WRITE: readonly ErrorCode[] = [
  'VALIDATION_FAILED',
  'VALIDATION_UNKNOWN_COLUMN',
  'VALIDATION_PASSWORD',
  'CONFLICT_UNIQUE',
  'CONFLICT_REFERENCE',
];

/**
 * Codes that the documented paths never answer (platform, schema, admin endpoints and the
 * dashboard only), plus AUTH_NOT_CONFIGURED: the auth paths are documented only where it
 * cannot happen.
 */
const NOT_ON_DOCUMENTED_PATHS: readonly ErrorCode[] = [
  'PROJECT_EXISTS',
  'AUTH_TABLE_EXISTS',
  'SCHEMA_CHANGE_DESTRUCTIVE',
  'SCHEMA_CHANGE_REJECTED',
  'TABLE_IN_USE',
  'AUTH_NOT_CONFIGURED',
  'DASHBOARD_NOT_BUILT',
];

/** Every code some operation claims; filled as operations are described. */
const CLAIMED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ...ANY_REQUEST,
  ...BODY,
  ...DATA_CREDENTIALS,
  ...BEARER,
  ...ROW_WRITE,
  ...NOT_ON_DOCUMENTED_PATHS,
  'TABLE_NOT_FOUND',
  'ROW_NOT_FOUND',
  'FORBIDDEN',
  'VALIDATION_FILTER',
  'RATE_LIMITED',
  'AUTH_INVALID_CREDENTIALS',
  'AUTH_EMAIL_TAKEN',
  'AUTH_EMAIL_NOT_VERIFIED',
  'AUTH_ALREADY_VERIFIED',
  'AUTH_INVALID_REFRESH_TOKEN',
  'AUTH_REFRESH_TOKEN_REUSED',
  'AUTH_INVALID_ONE_TIME_TOKEN',
  'VALIDATION_REDIRECT_URL',
  'REALTIME_CLIENT_NOT_FOUND',
]);

/** The catalogue codes no list claims (new ones): documented on every operation. */
function unclaimedCodes(): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !CLAIMED.has(code));
}

/** A reference to the error envelope schema in the document's components. */
export const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

/** The error envelope: `{ error: { code, message, suggestion } }`, three non-empty strings, and an optional `field`. */
export const ERROR_ENVELOPE_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'suggestion'],
      properties: {
        code: {
          type: 'string',
          pattern: '^[A-Z][A-Z0-9_]*$',
          description: 'Stable, UPPER_SNAKE_CASE; every code is listed in docs/errors.md.',
        },
        message: { type: 'string', minLength: 1, description: 'What went wrong, naming the field or position.' },
        suggestion: { type: 'string', minLength: 1, description: 'What to do next.' },
        field: {
          type: 'string',
          minLength: 1,
          description:
            'The request parameter the error is about, when the server names one (`expand` for a refused expand=).',
        },
      },
    },
  },
});

/** Statuses whose answers may carry Retry-After. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * The error responses of an operation that can answer `codes` (plus the codes every request
 * can meet), keyed by status: each lists its codes with the catalogue's message and limits
 * the envelope's `code` to them.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, object> {
  const all = [...new Set([...codes, ...ANY_REQUEST, ...unclaimedCodes()])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, object> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status)!.sort();
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CODES[code].message}`).join('\n\n'),
      ...(RETRY_AFTER_STATUSES.has(status) && {
        headers: {
          'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
        },
      }),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: ERROR_ENVELOPE_REF }, { properties: { error: { properties: { code: { enum: list } } } } }],
          },
        },
      },
    };
  }
  return responses;
}
