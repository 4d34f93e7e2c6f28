/**
 * The auth endpoints in the OpenAPI document (contract §5), present when the project has an
 * auth table; verify and resend-verification only when that table has `verify_email`.
 * Answers are plain objects (not the data envelope); `user` is the auth table's row.
 */
import type { ErrorCode } from '../errors/codes.js';
import { PASSWORD_LENGTH } from './column-schemas.js';
import { componentNames } from './data-paths.js';
import { BEARER, BODY, errorResponses } from './error-responses.js';
import type { TableModel } from './schema-model.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const object = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

const TOKEN = {
  type: 'string',
  description: 'The access token: a JWT (HS256) to send as Authorization: Bearer <token>.',
};
const REFRESH_TOKEN = { type: 'string', description: 'An opaque token to exchange at POST /auth/refresh.' };
const MESSAGE = { type: 'string' };
const PASSWORD = { type: 'string', writeOnly: true, minLength: PASSWORD_LENGTH.min, maxLength: PASSWORD_LENGTH.max };
const NO_CREDENTIALS: object[] = [];
const BEARER_SECURITY = [{ BearerAuth: [] }];
const NULLABLE_TEXT = { type: ['string', 'null'] };
/** One session of GET /auth/sessions (contract §13). */
const SESSION = object({
  id: { type: 'string' },
  created_at: { type: 'string', format: 'date-time' },
  last_used_at: { type: ['string', 'null'], format: 'date-time' },
  user_agent: NULLABLE_TEXT,
  current: { type: 'boolean' },
});

interface Endpoint {
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  /** What a client needs to know beyond the summary: rules, limits, what the answer holds. */
  readonly description: string;
  readonly bearer: boolean;
  readonly body?: object;
  readonly query?: object[];
  readonly status: number;
  readonly answer?: object;
  readonly errors: readonly ErrorCode[];
  /** A browser (Accept: text/html) gets an HTML page, or a 303 to the project's verify_redirect_url. */
  readonly page?: boolean;
}

const HTML = { 'text/html': { schema: { type: 'string' } } };

/** Adds the HTML page and the redirect a browser may get instead of JSON. */
function withPage(responses: Record<string, object>): Record<string, object> {
  const out: Record<string, object> = {};
  for (const [status, response] of Object.entries(responses))
    out[status] = { ...response, content: { ...(response as { content?: object }).content, ...HTML } };
  out['303'] = {
    description:
      'For a browser (Accept: text/html) when the setting verify_redirect_url is ' +
      'set: a redirect there with verified=true, or verified=false&error=CODE.',
    headers: { Location: { schema: { type: 'string', format: 'uri' } } },
  };
  return out;
}

/** The auth paths for the project's auth table, keyed by path. */
export function authPaths(table: TableModel): Record<string, object> {
  const user = ref(componentNames(table).row);
  // Inline, like the create body: a `default` in a component would read as required to generators.
  const signup = {
    ...table.signup,
    description:
      'The body of POST /auth/signup: email, password and the custom columns; a column left out takes its default.',
  };
  const session = object({ token: TOKEN, refresh_token: REFRESH_TOKEN, user });
  const endpoints: Endpoint[] = [
    {
      method: 'post',
      path: '/auth/signup',
      operationId: 'signUp',
      summary: 'Create a user and sign in',
      description:
        'A create on the auth table: its create rule applies (403 FORBIDDEN), so a project can stop ' +
        "users choosing their own role. Answers the user's first session. Rate limited per address.",
      bearer: false,
      body: signup,
      status: 201,
      answer: session,
      errors: [
        'RATE_LIMITED',
        'VALIDATION_FAILED',
        'VALIDATION_UNKNOWN_COLUMN',
        'VALIDATION_PASSWORD',
        'AUTH_EMAIL_TAKEN',
        'FORBIDDEN',
        'CONFLICT_UNIQUE',
        'CONFLICT_REFERENCE',
        ...BODY,
      ],
    },
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'logIn',
      summary: 'Sign in with email and password',
      description:
        'A wrong email and a wrong password answer alike (401 AUTH_INVALID_CREDENTIALS). ' +
        'With the setting require_verified_email, an unverified user gets 403 ' +
        'AUTH_EMAIL_NOT_VERIFIED. Rate limited per address and per email.',
      bearer: false,
      body: object({
        email: { type: 'string', maxLength: 320 },
        password: { type: 'string', writeOnly: true, maxLength: 4096 },
      }),
      status: 200,
      answer: session,
      errors: ['RATE_LIMITED', 'VALIDATION_FAILED', 'AUTH_INVALID_CREDENTIALS', 'AUTH_EMAIL_NOT_VERIFIED', ...BODY],
    },
    {
      method: 'post',
      path: '/auth/refresh',
      operationId: 'refresh',
      summary: 'Exchange a refresh token for a new access token',
      description:
        'Answers a new access token; the refresh token is the same one unless the setting ' +
        'refresh_token_rotation is on (then a new one, and replaying a used one later ends the session).',
      bearer: false,
      body: object({ refresh_token: { type: 'string', maxLength: 512 } }),
      status: 200,
      answer: object({ token: TOKEN, refresh_token: REFRESH_TOKEN }),
      errors: [
        'VALIDATION_FAILED',
        'AUTH_INVALID_REFRESH_TOKEN',
        'AUTH_REFRESH_TOKEN_REUSED',
        'AUTH_EMAIL_NOT_VERIFIED',
        ...BODY,
      ],
    },
    {
      method: 'get',
      path: '/auth/me',
      operationId: 'me',
      summary: 'The signed-in user',
      description: "The user of the access token, as the auth table's row (never the password).",
      bearer: true,
      status: 200,
      answer: object({ user }),
      errors: BEARER,
    },
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'logOut',
      summary: 'End this session (its refresh token and access tokens), every other one, or all',
      description:
        'scope=local (the default) ends this session, others every other session of the user, global all of them.',
      bearer: true,
      query: [
        {
          name: 'scope',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['local', 'others', 'global'], default: 'local' },
        },
      ],
      status: 204,
      errors: [...BEARER, 'VALIDATION_FAILED', ...BODY],
    },
    {
      method: 'get',
      path: '/auth/sessions',
      operationId: 'listSessions',
      summary: "The signed-in user's live sessions",
      description: "Each live session with its creation time, last use, user agent and whether it is the caller's own.",
      bearer: true,
      status: 200,
      answer: object({ data: { type: 'array', items: SESSION } }),
      errors: BEARER,
    },
    {
      method: 'delete',
      path: '/auth/sessions/{session_id}',
      operationId: 'endSession',
      summary: "End one of the signed-in user's sessions",
      description:
        "That session's refresh token and access tokens stop working " +
        "at once. Another user's session answers 404 ROW_NOT_FOUND.",
      bearer: true,
      query: [{ name: 'session_id', in: 'path', required: true, schema: { type: 'string' } }],
      status: 204,
      errors: [...BEARER, 'ROW_NOT_FOUND', ...BODY],
    },
    {
      method: 'post',
      path: '/auth/change-password',
      operationId: 'changePassword',
      summary: 'Change the password; older access tokens stop working',
      description:
        'Needs the current password. Answers a new access token; every older access token of the user stops working.',
      bearer: true,
      body: object({ current_password: { type: 'string', writeOnly: true, maxLength: 4096 }, new_password: PASSWORD }),
      status: 200,
      answer: object({ token: TOKEN, user }),
      errors: [
        ...BEARER,
        'RATE_LIMITED',
        'VALIDATION_FAILED',
        'VALIDATION_PASSWORD',
        'AUTH_INVALID_CREDENTIALS',
        ...BODY,
      ],
    },
    {
      method: 'post',
      path: '/auth/forgot-password',
      operationId: 'forgotPassword',
      summary: 'Mail a password reset link (the same answer for every email)',
      description:
        'Answers the same message whether or not the email is known, so it reveals nothing; the ' +
        'link goes to redirect_url with token= appended. Rate limited per address and per email.',
      bearer: false,
      body: object({
        email: { type: 'string', maxLength: 320 },
        redirect_url: {
          type: 'string',
          format: 'uri',
          description: "Its origin must be in the project's allowed_redirect_origins.",
        },
      }),
      status: 200,
      answer: object({ message: MESSAGE }),
      errors: ['RATE_LIMITED', 'VALIDATION_FAILED', 'VALIDATION_REDIRECT_URL', ...BODY],
    },
    {
      method: 'post',
      path: '/auth/reset-password',
      operationId: 'resetPassword',
      summary: 'Set a new password with the token from the reset mail',
      description: 'The token is single use and valid for one hour.',
      bearer: false,
      body: object({ token: { type: 'string', maxLength: 512 }, new_password: PASSWORD }),
      status: 200,
      answer: object({ message: MESSAGE }),
      errors: ['RATE_LIMITED', 'VALIDATION_FAILED', 'VALIDATION_PASSWORD', 'AUTH_INVALID_ONE_TIME_TOKEN', ...BODY],
    },
  ];
  if (table.verifyEmail) {
    endpoints.push(
      {
        method: 'get',
        path: '/auth/verify',
        operationId: 'verifyEmail',
        summary: 'Verify an email address with the token from the verification mail',
        description:
          'The token is single use and valid for 24 hours. A browser (Accept: text/html) ' +
          'gets a page instead of JSON, or a redirect to the setting verify_redirect_url.',
        bearer: false,
        query: [{ name: 'token', in: 'query', required: true, schema: { type: 'string', maxLength: 512 } }],
        status: 200,
        answer: object({ message: MESSAGE, user }),
        errors: ['RATE_LIMITED', 'VALIDATION_FAILED', 'AUTH_INVALID_ONE_TIME_TOKEN'],
        page: true,
      },
      {
        method: 'post',
        path: '/auth/resend-verification',
        operationId: 'resendVerification',
        summary: 'Mail a new verification link to the signed-in user',
        description:
          'Mails a new link to the signed-in user; 409 AUTH_ALREADY_VERIFIED ' +
          'when the email is already verified. Rate limited per email.',
        bearer: true,
        status: 200,
        answer: object({ message: MESSAGE }),
        errors: [...BEARER, 'RATE_LIMITED', 'AUTH_ALREADY_VERIFIED', ...BODY],
      },
    );
  }
  const paths: Record<string, object> = {};
  for (const e of endpoints) {
    paths[e.path] = {
      [e.method]: {
        operationId: e.operationId,
        summary: e.summary,
        description: e.description,
        tags: ['auth'],
        security: e.bearer ? BEARER_SECURITY : NO_CREDENTIALS,
        ...(e.query && { parameters: e.query }),
        ...(e.body && { requestBody: { required: true, content: json(e.body) } }),
        responses: (e.page ? withPage : (r: object) => r)({
          [String(e.status)]: {
            description: e.status === 204 ? 'Done.' : 'Success.',
            ...(e.answer && { content: json(e.answer) }),
          },
          ...errorResponses(e.errors),
        }),
      },
    };
  }
  return paths;
}
