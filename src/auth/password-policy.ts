/**
 * The project's password policy, the same for signup, data-API writes with the admin key,
 * change-password and reset: a length between the project's minimum and 256 characters.
 */
import { AppError } from '../errors/app-error.js';

/** The longest password accepted: argon2 hashes any length, but a bound keeps each hash cheap to refuse. */
export const MAX_PASSWORD_LENGTH = 256;

/** Throws VALIDATION_PASSWORD unless the password has `min` to 256 characters; `index` names a bulk row. */
export function checkPasswordLength(password: string, min: number, index?: number): void {
  const length = [...password].length;
  if (length < min || length > MAX_PASSWORD_LENGTH) {
    throw new AppError('VALIDATION_PASSWORD', {
      message:
        `${index === undefined ? '' : `row ${index}: `}password: must be ` +
        `${min} to ${MAX_PASSWORD_LENGTH} characters long (it has ${length}).`,
      suggestion: `Choose a password of at least ${min} characters; a passphrase of several words works well.`,
    });
  }
}
