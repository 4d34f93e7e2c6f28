/**
 * The auth side of the row service's CredentialsPort: rows of the auth table written through
 * the data API (or signup) get the same email and password handling as the auth flows, and a
 * user deleted or re-addressed there loses their sessions or mailed links as in the flows.
 */
import type { PasswordHasher } from '../lib/password-hasher.js';
import type { CredentialsPort } from '../tables/credentials-port.js';
import { deleteOneTimeTokensOfUsers, deleteUserOneTimeTokens } from './one-time-tokens.js';
import { checkPasswordLength } from './password-policy.js';
import { deleteSessionsOfUsers, deleteUserSessions } from './sessions.js';

/**
 * Builds the port over `hasher`: emails lower-cased, passwords checked and hashed, new users
 * unverified; a deleted user's sessions and links deleted, a new email's old links voided.
 */
export function buildAuthRowCredentials(hasher: PasswordHasher): CredentialsPort {
  return {
    async prepare(values, { creating, minPasswordLength, index }) {
      const out = { ...values };
      // Logins look emails up lower-cased: a stored capital would make the account unreachable.
      if (typeof out.email === 'string') out.email = out.email.toLowerCase();
      if (typeof out.password === 'string') {
        checkPasswordLength(out.password, minPasswordLength, index);
        out.password = await hasher.hash(out.password);
      }
      if (creating && out.email_verified === undefined) out.email_verified = false;
      return out;
    },
    async forgetUser(tx, userId) {
      await deleteUserSessions(tx, userId);
      await deleteUserOneTimeTokens(tx, userId);
    },
    async forgetUsers(tx, userIds) {
      await deleteSessionsOfUsers(tx, userIds);
      await deleteOneTimeTokensOfUsers(tx, userIds);
    },
    voidMailedLinks: deleteUserOneTimeTokens,
  };
}
