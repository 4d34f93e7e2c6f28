/**
 * Refresh tokens replaced by rotation (`_rb_spent_refresh_tokens`), kept as hashes so that a
 * replay of any of them, however many rotations ago, is recognised as reuse (contract §3: a
 * later replay of a used token revokes its session). The session row remembers only the
 * immediately previous token, for the grace period; this table remembers the rest.
 *
 * Bounded: rows go when their session is revoked or deleted, and each rotation drops the rows
 * whose `expires_at` has passed. `expires_at` is the session's expiry as of the rotation that
 * spent the token, so a row never outlives the session it belongs to by more than a change of
 * `refresh_token_ttl`, and a token spent longer than `refresh_token_ttl` ago in a session that
 * kept rotating is forgotten (it then answers like any unknown token).
 */
import { sql, type Expr } from '../query/sql-tree.js';
import { col, SPENT_REFRESH_TOKENS as SPENT } from '../store/system-tables.js';
import type { Executor } from '../store/types.js';
import { userIdsIn } from './user-ids-in.js';

/** A replaced refresh token as recorded by the rotation that replaced it. */
export interface SpentRefreshToken {
  /** SHA-256 of the token (`hashSecret`). */
  readonly hash: string;
  readonly sessionId: string;
  readonly userId: string;
  /** ISO time of the rotation. */
  readonly spentAt: string;
  /** ISO time after which the row may be dropped: the session's expiry set by that rotation. */
  readonly expiresAt: string;
}

/**
 * Records a token that a rotation just replaced, and drops the rows that have expired (the
 * table stays bounded without a separate sweeper). Call inside the rotation's transaction.
 * Throws the storage errors of the executor.
 */
export async function recordSpentRefreshToken(tx: Executor, spent: SpentRefreshToken): Promise<void> {
  await tx.run({
    kind: 'delete',
    table: SPENT.table,
    where: { kind: 'compare', op: '<=', left: sql.column('expires_at'), right: sql.value(spent.spentAt, 'text') },
  });
  // A hash is spent at most once (the rotation's conditional update wins once), so a conflict cannot be a new fact.
  await tx.run({
    kind: 'insert',
    table: SPENT.table,
    columns: SPENT.columns,
    rows: [[spent.hash, spent.sessionId, spent.userId, spent.spentAt, spent.expiresAt]],
    onConflictDoNothing: true,
  });
}

/** The session id a spent token belonged to, or undefined when the hash was never spent (or was forgotten). */
export async function findSpentRefreshToken(executor: Executor, hash: string): Promise<string | undefined> {
  const row = await executor.first({
    kind: 'select',
    table: SPENT.table,
    columns: [col(SPENT, 'session_id')],
    where: sql.eq('hash', hash),
  });
  return row === undefined ? undefined : String(row.session_id);
}

/**
 * Forgets the spent tokens of ended sessions: one session, every session of a user (except
 * `keepSessionId`), or, with `{ all: true }`, every session of the project.
 */
export async function forgetSpentRefreshTokens(
  executor: Executor,
  scope:
    | { readonly sessionId: string }
    | { readonly userId: string; readonly keepSessionId?: string }
    | { readonly userIds: readonly string[] }
    | { readonly all: true },
): Promise<void> {
  if ('userIds' in scope) {
    for (const where of userIdsIn(scope.userIds)) await executor.run({ kind: 'delete', table: SPENT.table, where });
    return;
  }
  let where: Expr;
  if ('sessionId' in scope) where = sql.eq('session_id', scope.sessionId);
  else if ('userId' in scope)
    where = sql.and(
      sql.eq('user_id', scope.userId),
      scope.keepSessionId === undefined ? undefined : sql.not(sql.eq('session_id', scope.keepSessionId)),
    );
  else where = sql.bool(true);
  await executor.run({ kind: 'delete', table: SPENT.table, where });
}
