/**
 * Sessions and their opaque refresh tokens (`_rb_sessions`). A refresh token is 256 random
 * bits; only its SHA-256 is stored. With rotation on, each refresh replaces the token; the
 * one just replaced stays usable for ROTATION_GRACE_MS and answers with the same new token
 * (two tabs refreshing at once both stay signed in); replayed later, it revokes the session.
 * Older replaced tokens are remembered in `spent-refresh-tokens.ts`: replaying one revokes too.
 */
import { createHmac } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import { randomToken } from '../lib/random.js';
import { constantTimeEqual, hashSecret } from '../lib/secrets.js';
import { newRowId } from '../lib/ids.js';
import { sql, type ColumnRef, type Expr } from '../query/sql-tree.js';
import { col, cols, SESSIONS } from '../store/system-tables.js';
import type { Database, Executor, Row } from '../store/types.js';
import { appendIdentityChange } from '../changes/event-log.js';
import { findSpentRefreshToken, forgetSpentRefreshTokens, recordSpentRefreshToken } from './spent-refresh-tokens.js';
import { userIdsIn } from './user-ids-in.js';

/** How long a replaced refresh token still answers (with the same new pair). */
export const ROTATION_GRACE_MS = 10_000;

/** What the token checks read of a session (not its activity columns). */
const SESSION_COLUMNS = cols(SESSIONS, [
  'id',
  'user_id',
  'refresh_hash',
  'previous_refresh_hash',
  'previous_valid_until',
  'created_at',
  'expires_at',
  'revoked_at',
]);
const column = (name: (typeof SESSIONS.columns)[number]['name']): ColumnRef => col(SESSIONS, name);

/** A stored session. */
export interface Session {
  readonly id: string;
  readonly userId: string;
  readonly expiresAt: string;
  readonly revokedAt: string | null;
}

/** The outcome of a refresh: the session, the refresh token to hand out, and when the pair was minted. */
export interface RefreshedSession {
  readonly session: Session;
  readonly refreshToken: string;
  /** Milliseconds since the epoch; the access token's `iat` comes from it. */
  readonly issuedAtMs: number;
}

function toSession(row: Row): Session {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    expiresAt: String(row.expires_at),
    revokedAt: (row.revoked_at as string | null) ?? null,
  };
}

function isLive(row: Row, nowIso: string): boolean {
  return row.revoked_at === null && String(row.expires_at) > nowIso;
}

/**
 * Starts a session for a user; returns it with its refresh token (the only time it exists in
 * full). `userAgent` (the User-Agent that signed in, cut to 512 characters) is shown by GET /auth/sessions.
 */
export async function createSession(
  executor: Executor,
  userId: string,
  ttlSeconds: number,
  nowMs: number,
  userAgent?: string,
): Promise<{ session: Session; refreshToken: string }> {
  const refreshToken = randomToken(32);
  const id = newRowId();
  const now = new Date(nowMs).toISOString();
  const expiresAt = new Date(nowMs + ttlSeconds * 1000).toISOString();
  const columns = [...SESSION_COLUMNS, column('last_used_at'), column('user_agent')];
  const agent = userAgent === undefined || userAgent === '' ? null : userAgent.slice(0, 512);
  await executor.run({
    kind: 'insert',
    table: SESSIONS.table,
    columns,
    rows: [[id, userId, hashSecret(refreshToken), null, null, now, expiresAt, null, now, agent]],
  });
  return { session: { id, userId, expiresAt, revokedAt: null }, refreshToken };
}

/** The session if it exists, belongs to `userId`, is not revoked and has not expired. */
export async function findLiveSession(
  executor: Executor,
  sessionId: string,
  userId: string,
  nowMs: number,
): Promise<Session | undefined> {
  const row = await executor.first({
    kind: 'select',
    table: SESSIONS.table,
    columns: SESSION_COLUMNS,
    where: sql.and(sql.eq('id', sessionId), sql.eq('user_id', userId)),
  });
  return row && isLive(row, new Date(nowMs).toISOString()) ? toSession(row) : undefined;
}

/**
 * Exchanges a refresh token. With `rotate`, the answer carries a new refresh token derived
 * from the old one with `derivationKey` (so a replay within the grace period gets the same
 * one). Throws AUTH_INVALID_REFRESH_TOKEN, or AUTH_REFRESH_TOKEN_REUSED after revoking the
 * session when a replaced token comes back after the grace period, or when any token replaced
 * before the previous one comes back at all. `admit`, when given, may refuse the session's
 * user by throwing before anything is rotated (the presented token stays usable).
 */
export async function refreshSession(
  db: Database,
  presented: string,
  options: {
    rotate: boolean;
    ttlSeconds: number;
    nowMs: number;
    derivationKey: string;
    admit?: (tx: Executor, userId: string) => Promise<void>;
  },
): Promise<RefreshedSession> {
  const { nowMs } = options;
  const nowIso = new Date(nowMs).toISOString();
  const presentedHash = hashSecret(presented);
  const outcome = await db.transaction(async (tx): Promise<RefreshedSession | 'reused'> => {
    const current = await tx.first({
      kind: 'select',
      table: SESSIONS.table,
      columns: SESSION_COLUMNS,
      where: sql.eq('refresh_hash', presentedHash),
      forUpdate: true,
    });
    if (current) {
      if (!isLive(current, nowIso)) throw invalidRefreshToken();
      await options.admit?.(tx, String(current.user_id));
      if (!options.rotate) return { session: toSession(current), refreshToken: presented, issuedAtMs: nowMs };
      const next = deriveRefreshToken(options.derivationKey, String(current.id), presented);
      const expiresAt = new Date(nowMs + options.ttlSeconds * 1000).toISOString();
      const changed = await tx.run({
        kind: 'update',
        table: SESSIONS.table,
        set: [
          { column: column('refresh_hash'), value: sql.value(hashSecret(next), 'text') },
          { column: column('previous_refresh_hash'), value: sql.value(presentedHash, 'text') },
          {
            column: column('previous_valid_until'),
            value: sql.value(new Date(nowMs + ROTATION_GRACE_MS).toISOString(), 'text'),
          },
          { column: column('expires_at'), value: sql.value(expiresAt, 'text') },
        ],
        where: sql.and(sql.eq('id', current.id), sql.eq('refresh_hash', presentedHash)),
      });
      if (changed !== 1) throw invalidRefreshToken();
      await recordSpentRefreshToken(tx, {
        hash: presentedHash,
        sessionId: String(current.id),
        userId: String(current.user_id),
        spentAt: nowIso,
        expiresAt,
      });
      return { session: { ...toSession(current), expiresAt }, refreshToken: next, issuedAtMs: nowMs };
    }
    const replaced = await tx.first({
      kind: 'select',
      table: SESSIONS.table,
      columns: SESSION_COLUMNS,
      where: sql.eq('previous_refresh_hash', presentedHash),
      forUpdate: true,
    });
    if (!replaced) return revokeForSpentToken(tx, presentedHash, nowIso);
    if (!isLive(replaced, nowIso)) throw invalidRefreshToken();
    const graceEnds = Date.parse(String(replaced.previous_valid_until));
    if (nowMs <= graceEnds) {
      const next = deriveRefreshToken(options.derivationKey, String(replaced.id), presented);
      // The chain moved on again (or the key changed): this token no longer leads anywhere.
      if (!constantTimeEqual(hashSecret(next), String(replaced.refresh_hash))) throw invalidRefreshToken();
      await options.admit?.(tx, String(replaced.user_id));
      return { session: toSession(replaced), refreshToken: next, issuedAtMs: graceEnds - ROTATION_GRACE_MS };
    }
    // A replaced token used after its grace period: someone holds a stolen copy. End the session.
    await endSessionForReuse(tx, String(replaced.id), nowIso);
    return 'reused';
  });
  if (outcome === 'reused') throw new AppError('AUTH_REFRESH_TOKEN_REUSED');
  return outcome;
}

/**
 * A token matching neither the current nor the previous token of any session: if an earlier
 * rotation spent it and its session is still live, a copy is being replayed (the owner has
 * moved on), so the session ends ('reused'). Throws AUTH_INVALID_REFRESH_TOKEN otherwise.
 */
async function revokeForSpentToken(tx: Executor, presentedHash: string, nowIso: string): Promise<'reused'> {
  const sessionId = await findSpentRefreshToken(tx, presentedHash);
  const session =
    sessionId === undefined
      ? undefined
      : await tx.first({
          kind: 'select',
          table: SESSIONS.table,
          columns: SESSION_COLUMNS,
          where: sql.eq('id', sessionId),
          forUpdate: true,
        });
  if (!session || !isLive(session, nowIso)) throw invalidRefreshToken();
  await endSessionForReuse(tx, sessionId!, nowIso);
  return 'reused';
}

async function endSessionForReuse(tx: Executor, sessionId: string, nowIso: string): Promise<void> {
  await tx.run({
    kind: 'update',
    table: SESSIONS.table,
    set: [{ column: column('revoked_at'), value: sql.value(nowIso, 'text') }],
    where: sql.eq('id', sessionId),
  });
  await appendIdentityChange(tx, { session: sessionId }, nowIso);
  await forgetSpentRefreshTokens(tx, { sessionId });
}

/**
 * Revokes one session (logout) and forgets its spent refresh tokens. Call it in a transaction:
 * it also appends the end of the session to the realtime event log.
 */
export async function revokeSession(executor: Executor, sessionId: string, nowMs: number): Promise<void> {
  await executor.run({
    kind: 'update',
    table: SESSIONS.table,
    set: [revokedNow(nowMs)],
    where: sql.and(sql.eq('id', sessionId), notRevoked()),
  });
  await appendIdentityChange(executor, { session: sessionId }, new Date(nowMs).toISOString());
  await forgetSpentRefreshTokens(executor, { sessionId });
}

/** Revokes every session of a user, except `keepSessionId` when given. */
export async function revokeUserSessions(
  executor: Executor,
  userId: string,
  nowMs: number,
  keepSessionId?: string,
): Promise<void> {
  const keep: Expr | undefined = keepSessionId === undefined ? undefined : sql.not(sql.eq('id', keepSessionId));
  await executor.run({
    kind: 'update',
    table: SESSIONS.table,
    set: [revokedNow(nowMs)],
    where: sql.and(sql.eq('user_id', userId), notRevoked(), keep),
  });
  await appendIdentityChange(
    executor,
    { user: userId, ...(keepSessionId !== undefined && { keep_session: keepSessionId }) },
    new Date(nowMs).toISOString(),
  );
  await forgetSpentRefreshTokens(executor, { userId, ...(keepSessionId !== undefined && { keepSessionId }) });
}

/** Deletes every session of a deleted user and the spent refresh tokens of them: nothing of the user stays behind. */
export async function deleteUserSessions(executor: Executor, userId: string): Promise<void> {
  await executor.run({ kind: 'delete', table: SESSIONS.table, where: sql.eq('user_id', userId) });
  await forgetSpentRefreshTokens(executor, { userId });
}

/**
 * Deletes the sessions (and spent refresh tokens) of every user of `userIds` (users deleted by
 * filter, up to 10,000): one statement per thousand users instead of two per user.
 */
export async function deleteSessionsOfUsers(executor: Executor, userIds: readonly string[]): Promise<void> {
  for (const where of userIdsIn(userIds)) await executor.run({ kind: 'delete', table: SESSIONS.table, where });
  await forgetSpentRefreshTokens(executor, { userIds });
}

/** Revokes every session of the project (rotate-jwt-secret with revoke_sessions). */
export async function revokeAllSessions(executor: Executor, nowMs: number): Promise<void> {
  await executor.run({ kind: 'update', table: SESSIONS.table, set: [revokedNow(nowMs)], where: notRevoked() });
  await appendIdentityChange(executor, { all: true }, new Date(nowMs).toISOString());
  await forgetSpentRefreshTokens(executor, { all: true });
}

function revokedNow(nowMs: number) {
  return { column: column('revoked_at'), value: sql.value(new Date(nowMs).toISOString(), 'text') };
}

function notRevoked(): Expr {
  return sql.isNull(sql.column('revoked_at'));
}

/** The successor of a refresh token: an HMAC under a server-side key, so only the server can compute it. */
function deriveRefreshToken(key: string, sessionId: string, token: string): string {
  return createHmac('sha256', key).update(`rowbase-refresh-rotation\0${sessionId}\0${token}`).digest('base64url');
}

function invalidRefreshToken(): AppError {
  return new AppError('AUTH_INVALID_REFRESH_TOKEN');
}
