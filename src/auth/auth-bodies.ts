/**
 * JSON Schemas of the auth endpoints' bodies, compiled with ajv on first use. A field of the wrong
 * type (a token sent as an object, an email as an array) is a 400 VALIDATION_FAILED naming
 * it, before anything is looked up: never a 500, never a match.
 */
import { Ajv } from 'ajv';
import { lazyValidator, type LazyValidator } from '../lib/lazy-validator.js';
import { AppError } from '../errors/app-error.js';

const ajv = new Ajv({ allErrors: false, strict: true });

const string = (maxLength: number) => ({ type: 'string', maxLength });
// Passwords longer than 256 characters are refused at signup; the cap here only bounds hashing work.
const PASSWORD = string(4096);
const TOKEN = string(512);

function objectSchema(properties: Record<string, object>) {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties), properties };
}

/** The body of POST login. */
export interface LoginBody {
  readonly email: string;
  readonly password: string;
}
/** The body of POST refresh. */
export interface RefreshBody {
  readonly refresh_token: string;
}
/** The body of POST change-password. */
export interface ChangePasswordBody {
  readonly current_password: string;
  readonly new_password: string;
}
/** The body of POST forgot-password. */
export interface ForgotPasswordBody {
  readonly email: string;
  readonly redirect_url: unknown;
}
/** The body of POST reset-password. */
export interface ResetPasswordBody {
  readonly token: string;
  readonly new_password: string;
}
/** The query of GET verify. */
export interface VerifyQuery {
  readonly token: string;
}

interface BodySpec<T> {
  readonly validate: LazyValidator<T>;
  /** An example of a good body, for the suggestion. */
  readonly example: string;
}

function spec<T>(properties: Record<string, object>, example: string): BodySpec<T> {
  return { validate: lazyValidator<T>(ajv, objectSchema(properties)), example };
}

/** The compiled body checks of the auth endpoints, for `parseBody`. */
export const BODIES = {
  login: spec<LoginBody>({ email: string(320), password: PASSWORD }, '{"email": "ada@example.com", "password": "..."}'),
  refresh: spec<RefreshBody>({ refresh_token: TOKEN }, '{"refresh_token": "..."}'),
  changePassword: spec<ChangePasswordBody>(
    { current_password: PASSWORD, new_password: PASSWORD },
    '{"current_password": "...", "new_password": "..."}',
  ),
  // redirect_url is only required here: checkRedirectUrl refuses a
  // bad one (any type, any length) with VALIDATION_REDIRECT_URL.
  forgotPassword: spec<ForgotPasswordBody>(
    { email: string(320), redirect_url: {} },
    '{"email": "ada@example.com", "redirect_url": "https://app.example.com/reset"}',
  ),
  resetPassword: spec<ResetPasswordBody>(
    { token: TOKEN, new_password: PASSWORD },
    '{"token": "<token from the email>", "new_password": "..."}',
  ),
  verify: spec<VerifyQuery>({ token: TOKEN }, '?token=<token from the email>'),
} as const;

/** Checks `body` against a spec; returns it typed or throws VALIDATION_FAILED naming the field. */
export function parseBody<T>(bodySpec: BodySpec<T>, body: unknown): T {
  if (bodySpec.validate(body)) return body;
  const error = bodySpec.validate.errors?.[0];
  let message: string;
  if (!error || (error.instancePath === '' && error.keyword === 'type')) {
    message = 'the body must be a JSON object.';
  } else if (error.keyword === 'required') {
    message = `${String(error.params.missingProperty)}: is required.`;
  } else if (error.keyword === 'additionalProperties') {
    message = `${String(error.params.additionalProperty)}: is not a field of this request.`;
  } else {
    const field = error.instancePath.replace(/^\//, '');
    message =
      error.keyword === 'maxLength'
        ? `${field}: is too long (at most ${String(error.params.limit)} characters).`
        : `${field}: must be a string.`;
  }
  throw new AppError('VALIDATION_FAILED', { message, suggestion: `Send ${bodySpec.example}.` });
}
