/**
 * Single-use tokens mailed to users (`_rb_one_time_tokens`): password reset (1 hour) and
 * email verification (24 hours). 256 random bits each; only the SHA-256 is stored. A token
 * is consumed by one conditional UPDATE, so of two concurrent uses at most one succeeds. A
 * reset token carries the password version it was issued for and dies when it changes.
 */
import { AppError } from '../errors/app-error.js';
import { randomToken } from '../lib/random.js';
import { hashSecret } from '../lib/secrets.js';
import { sql, type Expr } from '../query/sql-tree.js';
import { col, ONE_TIME_TOKENS as TOKENS } from '../store/system-tables.js';
import type { Executor } from '../store/types.js';
import { userIdsIn } from './user-ids-in.js';

export type OneTimeTokenKind = 'reset' | 'verify';

/** Lifetimes in seconds. */
export const ONE_TIME_TOKEN_TTL: Readonly<Record<OneTimeTokenKind, number>> = Object.freeze({
  reset: 3600,
  verify: 86_400,
});

/** What a valid token grants. */
export interface OneTimeTokenGrant {
  readonly userId: string;
  readonly passwordVersion: number;
}

/**
 * Issues a token of `kind` for a user and returns it (the only time it exists in full).
 * Also clears that user's spent and expired tokens of the same kind, so the table stays small.
 */
export async function issueOneTimeToken(
  executor: Executor,
  kind: OneTimeTokenKind,
  userId: string,
  passwordVersion: number,
  nowMs: number,
): Promise<string> {
  const now = new Date(nowMs).toISOString();
  await executor.run({
    kind: 'delete',
    table: TOKENS.table,
    where: sql.and(
      sql.eq('user_id', userId),
      sql.eq('kind', kind),
      sql.or(sql.isNotNull(sql.column('used_at')), {
        kind: 'compare',
        op: '<=',
        left: sql.column('expires_at'),
        right: sql.value(now, 'text'),
      }),
    ),
  });
  const token = randomToken(32);
  const expiresAt = new Date(nowMs + ONE_TIME_TOKEN_TTL[kind] * 1000).toISOString();
  await executor.run({
    kind: 'insert',
    table: TOKENS.table,
    columns: TOKENS.columns,
    rows: [[hashSecret(token), kind, userId, passwordVersion, now, expiresAt, null]],
  });
  return token;
}

/** The grant of an unused, unexpired token, without using it up (to fail fast before slow work). */
export async function peekOneTimeToken(
  executor: Executor,
  kind: OneTimeTokenKind,
  token: string,
  nowMs: number,
): Promise<OneTimeTokenGrant | undefined> {
  const row = await executor.first({
    kind: 'select',
    table: TOKENS.table,
    columns: TOKENS.columns,
    where: usable(kind, token, nowMs),
  });
  return row ? { userId: String(row.user_id), passwordVersion: Number(row.password_version) } : undefined;
}

/**
 * Uses a token up and returns its grant, or undefined when it is unknown, used, expired or
 * of another kind. One statement decides: `used_at IS NULL` in the WHERE clause is the lock.
 */
export async function consumeOneTimeToken(
  executor: Executor,
  kind: OneTimeTokenKind,
  token: string,
  nowMs: number,
): Promise<OneTimeTokenGrant | undefined> {
  const row = await executor.first({
    kind: 'update',
    table: TOKENS.table,
    set: [{ column: col(TOKENS, 'used_at'), value: sql.value(new Date(nowMs).toISOString(), 'text') }],
    where: usable(kind, token, nowMs),
    returning: TOKENS.columns,
  });
  return row ? { userId: String(row.user_id), passwordVersion: Number(row.password_version) } : undefined;
}

/** Deletes every token of a user, used or not: the user is gone, or the address the links went to changed. */
export async function deleteUserOneTimeTokens(executor: Executor, userId: string): Promise<void> {
  await executor.run({ kind: 'delete', table: TOKENS.table, where: sql.eq('user_id', userId) });
}

/** Deletes the mailed links of every user of `userIds` (users deleted by filter), a thousand users a statement. */
export async function deleteOneTimeTokensOfUsers(executor: Executor, userIds: readonly string[]): Promise<void> {
  for (const where of userIdsIn(userIds)) await executor.run({ kind: 'delete', table: TOKENS.table, where });
}

/** AUTH_INVALID_ONE_TIME_TOKEN: one answer for unknown, used, expired and dead tokens alike. */
export function invalidOneTimeToken(): AppError {
  return new AppError('AUTH_INVALID_ONE_TIME_TOKEN');
}

function usable(kind: OneTimeTokenKind, token: string, nowMs: number): Expr {
  return sql.and(
    // Looked up by hash: the stored value reveals nothing, and equality on a hash leaks no useful timing.
    sql.eq('hash', hashSecret(token)),
    sql.eq('kind', kind),
    sql.isNull(sql.column('used_at')),
    {
      kind: 'compare',
      op: '>',
      left: sql.column('expires_at'),
      right: sql.value(new Date(nowMs).toISOString(), 'text'),
    },
  );
}
