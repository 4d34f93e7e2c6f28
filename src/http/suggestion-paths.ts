/**
 * Suggestions in the catalogue name paths generically (`POST /p/{id}/auth/refresh`); an
 * answer to a request on a project's path names that project (and table), so the suggestion
 * can be copied as it is.
 */
import { AppError } from '../errors/app-error.js';
import { PROJECT_ID_PATTERN } from '../projects/project-registry.js';
import { NAME_PATTERN } from '../schema/definition.js';

/**
 * The error with `{id}` and `{table}` in its suggestion replaced by the request's `id` and
 * `table` path parameters. Only well-formed values are filled in (anything else could not
 * name a project or table); the error is returned unchanged when nothing is replaced.
 */
export function withRequestPaths(error: AppError, params: unknown): AppError {
  const { id, table } = (typeof params === 'object' && params !== null ? params : {}) as {
    id?: unknown;
    table?: unknown;
  };
  let suggestion = error.suggestion;
  if (typeof id === 'string' && PROJECT_ID_PATTERN.test(id))
    suggestion = suggestion.replaceAll('/p/{id}/', `/p/${id}/`);
  if (typeof table === 'string' && NAME_PATTERN.test(table))
    suggestion = suggestion.replaceAll('/{table}', `/${table}`);
  if (suggestion === error.suggestion) return error;
  return new AppError(error.code, {
    message: error.message,
    suggestion,
    headers: error.headers,
    ...(error.cause !== undefined && { cause: error.cause }),
  });
}
