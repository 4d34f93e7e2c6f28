/**
 * The port through which the row service has an auth table's credentials prepared before a
 * write (the admin key may create users and set passwords through the data API), and voided
 * when a user is deleted or changes email. Password policy, hashing, sessions and mailed links
 * are auth's: auth/ implements the port, and tables/ stays below auth/.
 */
import type { Executor } from '../store/types.js';
import type { RowValues } from './row-validator.js';

/** Which write the values are for, and the project's policy for them. */
export interface CredentialWrite {
  /** A create (a new user starts unverified) rather than an update of some fields. */
  readonly creating: boolean;
  /** The project's minimum password length. */
  readonly minPasswordLength: number;
  /** The row's index in a bulk create, named in messages. */
  readonly index?: number;
}

/** Prepares the credential fields of auth-table rows; implemented in auth/ (auth-row-credentials.ts). */
export interface CredentialsPort {
  /**
   * The validated `values` of an auth-table row as they are to be stored: email lower-cased,
   * password checked and replaced by its hash, email_verified false on a new user unless set.
   * Throws VALIDATION_PASSWORD.
   */
  prepare(values: RowValues, write: CredentialWrite): Promise<RowValues>;
  /** In the transaction that deleted user `userId`: deletes their sessions and mailed links. */
  forgetUser(tx: Executor, userId: string): Promise<void>;
  /** `forgetUser` for many users at once (a delete by filter): a few statements, not a few per user. */
  forgetUsers(tx: Executor, userIds: readonly string[]): Promise<void>;
  /** In the transaction that changed user `userId`'s email: voids the links mailed to the old address. */
  voidMailedLinks(tx: Executor, userId: string): Promise<void>;
}
