/**
 * The error catalogue: every code a client can see, with its HTTP status and default
 * message and suggestion. Codes are stable: never rename or reuse one. `docs/errors.md`
 * is checked against this map by a test.
 */
export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
  readonly suggestion: string;
}

const catalogue = {
  // --- generic HTTP ---
  NOT_FOUND: {
    status: 404,
    message: 'No route matches this method and path.',
    suggestion: 'Check the path and method against the API reference in docs/.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'This path exists but does not take this method.',
    suggestion: 'Use one of the methods in the Allow header of this answer.',
  },
  INVALID_JSON: {
    status: 400,
    message: 'The request body is not valid JSON.',
    suggestion: 'Send a well-formed JSON document with Content-Type: application/json.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body has an unsupported content type.',
    suggestion: 'Send the body as JSON with the header Content-Type: application/json.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is too large.',
    suggestion: 'Keep bodies under 1 MiB (16 MiB for /bulk); split large imports into several bulk requests.',
  },
  BAD_REQUEST: {
    status: 400,
    message: 'The request is not well-formed HTTP or its URL cannot be decoded.',
    suggestion:
      'Check the request line and percent-encode special characters in the path and query (encodeURIComponent).',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    message: 'The request was not received in time.',
    suggestion: 'Send the whole request promptly, then retry.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    message: 'The request headers or URL are too large.',
    suggestion: 'Shorten the URL (keep filters under 4096 characters) and the headers, then retry.',
  },
  INTERNAL_ERROR: {
    status: 500,
    message: 'The server failed to handle this request.',
    suggestion: 'Retry later; if it persists, report it with the request id from the x-request-id header.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The server is shutting down or its storage is unreachable.',
    suggestion: 'Retry in a few seconds.',
  },
  DASHBOARD_NOT_BUILT: {
    status: 503,
    message: 'The admin dashboard at /_/ has not been built on this server.',
    suggestion: 'Run `npm run build` (npm install does it through the prepare script), then restart the server.',
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests.',
    suggestion: 'Wait for the number of seconds in the Retry-After header, then retry.',
  },

  // --- credentials ---
  AUTH_REQUIRED: {
    status: 401,
    message: 'This endpoint needs credentials.',
    suggestion: 'Send X-Admin-Key: sk_..., X-Api-Key: pk_..., or Authorization: Bearer <access token>.',
  },
  AUTH_INVALID_KEY: {
    status: 401,
    message: 'The key is wrong, revoked or belongs to another project.',
    suggestion: 'Use a current key of this project; rotated keys stop working (see POST /p/{id}/v1/rotate-keys).',
  },
  AUTH_INVALID_TOKEN: {
    status: 401,
    message: 'The access token is invalid or no longer valid.',
    suggestion: 'Sign in again, or exchange your refresh token at POST /p/{id}/auth/refresh.',
  },
  AUTH_TOKEN_EXPIRED: {
    status: 401,
    message: 'The access token has expired.',
    suggestion: 'Exchange your refresh token for a new access token at POST /p/{id}/auth/refresh.',
  },
  FORBIDDEN: {
    status: 403,
    message: 'The rules of this table do not allow this operation for this caller.',
    suggestion:
      'Use the admin key, or change one rule with PATCH /p/{id}/v1/tables/{table} and {"rules": {"<operation>": ""}}.',
  },

  // --- projects and schema ---
  PROJECT_NOT_FOUND: {
    status: 404,
    message: 'No project has this id.',
    suggestion: 'List projects with GET /v1/projects (platform key) or `rowbase projects list`.',
  },
  PROJECT_EXISTS: {
    status: 409,
    message: 'A project with this id already exists.',
    suggestion: 'Choose another id, or omit id to have one generated.',
  },
  TABLE_NOT_FOUND: {
    status: 404,
    message: 'This project has no table of this name.',
    suggestion: 'List tables with GET /p/{id}/v1/tables, or create it with PUT /p/{id}/v1/tables/{table}.',
  },
  AUTH_TABLE_EXISTS: {
    status: 409,
    message: 'This project already has an auth table.',
    suggestion: 'A project has at most one auth table; add columns to the existing one instead.',
  },
  SCHEMA_CHANGE_DESTRUCTIVE: {
    status: 409,
    message: 'This change would drop a column or convert its type and lose data.',
    suggestion: 'Repeat the request with ?allow_destructive=true if losing that data is intended.',
  },
  SCHEMA_CHANGE_REJECTED: {
    status: 409,
    message: 'The existing rows do not allow this schema change.',
    suggestion: 'Give the new column a default, or fix the existing rows first.',
  },
  TABLE_EXISTS: {
    status: 412,
    message: 'A table of this name exists already, and the request asked only to create it (If-None-Match: *).',
    suggestion:
      'Choose another name, or change the existing table: GET it, apply your change and ' +
      'send it with If-Match: <its ETag>, or use PATCH /p/{id}/v1/tables/{table}.',
  },
  SCHEMA_CHANGED: {
    status: 412,
    message: 'The table changed since you read it (its ETag no longer matches If-Match).',
    suggestion:
      'GET /p/{id}/v1/tables/{table} again, apply your change to it and send it ' +
      'with If-Match: <its new ETag>, or use PATCH to change only what you name.',
  },
  TABLE_IN_USE: {
    status: 409,
    message: 'Another table references this table.',
    suggestion: 'Remove the references to it from the other tables first.',
  },

  // --- rows ---
  ROW_NOT_FOUND: {
    status: 404,
    message: 'No row with this id is visible to this caller.',
    suggestion: 'Check the id; rows outside the view rule are not visible.',
  },
  REALTIME_CLIENT_NOT_FOUND: {
    status: 404,
    message: 'No open realtime stream has this client id.',
    suggestion:
      'Open GET /p/{id}/realtime and send the client_id of its connect event; a closed stream needs a new one.',
  },
  VALIDATION_FAILED: {
    status: 400,
    message: 'The request failed validation.',
    suggestion: 'Fix the field named in the message and retry.',
  },
  VALIDATION_UNKNOWN_COLUMN: {
    status: 400,
    message: 'The body names a column the table does not have.',
    suggestion: 'Remove the unknown field or add the column to the table.',
  },
  VALIDATION_FILTER: {
    status: 400,
    message: 'The filter, sort or select parameter is invalid.',
    suggestion: 'Fix the expression at the position given; see docs/filters.md.',
  },
  CONFLICT_UNIQUE: {
    status: 409,
    message: 'A row with this value already exists.',
    suggestion: 'Use a different value for the unique column, or update the existing row.',
  },
  CONFLICT_REFERENCE: {
    status: 409,
    message: 'The row refers to a missing row, or other rows still refer to it.',
    suggestion: 'Create the referenced row first, or delete the rows that refer to this one.',
  },

  // --- authentication flows ---
  AUTH_NOT_CONFIGURED: {
    status: 404,
    message: 'This project has no auth table.',
    suggestion: 'Create one with PUT /p/{id}/v1/tables/{table} and "auth_table": true.',
  },
  AUTH_INVALID_CREDENTIALS: {
    status: 401,
    message: 'The email or password is wrong.',
    suggestion: 'Check both, or reset the password with POST /p/{id}/auth/forgot-password.',
  },
  AUTH_EMAIL_TAKEN: {
    status: 409,
    message: 'An account with this email already exists.',
    suggestion: 'Log in instead, or reset the password with POST /p/{id}/auth/forgot-password.',
  },
  AUTH_EMAIL_NOT_VERIFIED: {
    status: 403,
    message: 'The email address is not verified yet.',
    suggestion:
      'Open the link in the verification email, or request a new one with POST /p/{id}/auth/resend-verification.',
  },
  AUTH_ALREADY_VERIFIED: {
    status: 409,
    message: 'The email address is already verified.',
    suggestion: 'Nothing to do: the account is verified.',
  },
  AUTH_INVALID_REFRESH_TOKEN: {
    status: 401,
    message: 'The refresh token is invalid, expired or revoked.',
    suggestion: 'Sign in again with POST /p/{id}/auth/login.',
  },
  AUTH_REFRESH_TOKEN_REUSED: {
    status: 401,
    message: 'This refresh token was already used; the session has been revoked.',
    suggestion: 'Sign in again with POST /p/{id}/auth/login.',
  },
  AUTH_INVALID_ONE_TIME_TOKEN: {
    status: 400,
    message: 'The token is invalid, used or expired.',
    suggestion: 'Request a new email and use its link within its lifetime.',
  },
  VALIDATION_PASSWORD: {
    status: 400,
    message: 'The password does not meet the rules.',
    suggestion: 'Use between 8 and 256 characters.',
  },
  VALIDATION_REDIRECT_URL: {
    status: 400,
    message:
      'The redirect_url is refused: not an absolute http(s) URL exactly as sent ' +
      '(no control characters or whitespace, at most 2048 characters), or ' +
      "its origin is not in this project's allowed_redirect_origins.",
    suggestion: 'Add the origin with PUT /p/{id}/v1/redirect-origins, or use an allowed one.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof catalogue;

/** The frozen catalogue: code → status, default message, default suggestion. */
export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorSpec>> = Object.freeze(catalogue);
