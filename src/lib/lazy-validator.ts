/**
 * An ajv validator compiled on its first call instead of at module load: compiling is the
 * largest part of start-up (ajv generates and evaluates code per schema), and most validators
 * (auth bodies, admin endpoints, settings) are not needed to answer the first request.
 */
import type { Ajv, ErrorObject } from 'ajv';

/** Called like an ajv ValidateFunction; `errors` holds the last call's errors. */
export interface LazyValidator<T> {
  (data: unknown): data is T;
  errors: ErrorObject[] | null | undefined;
}

export function lazyValidator<T>(ajv: Ajv, schema: object): LazyValidator<T> {
  let compiled: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;
  const check = ((data: unknown): data is T => {
    compiled ??= ajv.compile<T>(schema);
    const valid = compiled(data);
    check.errors = compiled.errors;
    return valid;
  }) as LazyValidator<T>;
  check.errors = null;
  return check;
}
