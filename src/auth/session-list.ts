/**
 * The sessions a user can see and end (contract §13): GET/DELETE /auth/sessions[/{id}],
 * logout with a scope, and the admin endpoints for one user's sessions.
 */
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../lib/clock.js';
import type { ProjectState } from '../projects/project-registry.js';
import { sql, type Expr } from '../query/sql-tree.js';
import type { SchemaService } from '../tables/schema-service.js';
import { col, cols, SESSIONS } from '../store/system-tables.js';
import type { Executor } from '../store/types.js';
import { revokeSession, revokeUserSessions } from './sessions.js';
import type { TokenVerifier } from './token-verifier.js';
import { findUserById, openAuthTable } from './users.js';

/** One session as GET /auth/sessions shows it. */
export interface SessionView {
  readonly id: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly user_agent: string | null;
  readonly current: boolean;
}

/** What `POST /auth/logout?scope=` ends: this session, every other one, or all of the user's. */
export type LogoutScope = 'local' | 'others' | 'global';

const LOGOUT_SCOPES: readonly LogoutScope[] = ['local', 'others', 'global'];

const VIEW_COLUMNS = Object.freeze(cols(SESSIONS, ['id', 'created_at', 'last_used_at', 'user_agent']));

/** Listing and ending sessions for their user and for the admin. */
export class SessionList {
  constructor(
    private readonly schemas: SchemaService,
    private readonly tokens: TokenVerifier,
    private readonly clock: Clock,
  ) {}

  /**
   * The bearer's live sessions, oldest first. Throws AUTH_NOT_CONFIGURED,
   * AUTH_REQUIRED, AUTH_INVALID_TOKEN, AUTH_TOKEN_EXPIRED.
   */
  async list(state: ProjectState, bearerToken: string | undefined): Promise<SessionView[]> {
    const auth = await openAuthTable(this.schemas, state.project.id);
    const { session } = await this.tokens.verifyBearer(state, bearerToken, auth);
    return liveSessions(auth.db, session.userId, this.clock.now(), session.id);
  }

  /** Ends one of the bearer's own sessions. Throws like `list`, and ROW_NOT_FOUND for any other id. */
  async end(state: ProjectState, bearerToken: string | undefined, sessionId: string): Promise<void> {
    const auth = await openAuthTable(this.schemas, state.project.id);
    const { session } = await this.tokens.verifyBearer(state, bearerToken, auth);
    const nowMs = this.clock.now();
    const owned = await auth.db.first({
      kind: 'select',
      table: SESSIONS.table,
      columns: [col(SESSIONS, 'id')],
      where: sql.and(sql.eq('id', sessionId), liveOf(session.userId, nowMs)),
    });
    if (!owned) {
      throw new AppError('ROW_NOT_FOUND', {
        message: `You have no live session with id "${sessionId}".`,
        suggestion: `List your sessions with GET /p/${state.project.id}/auth/sessions and use one of their ids.`,
      });
    }
    await auth.db.transaction((tx) => revokeSession(tx, sessionId, nowMs));
  }

  /**
   * Ends the bearer's session (`local`), every other one (`others`) or all of
   * them (`global`). Throws like `list`, and VALIDATION_FAILED for another scope.
   */
  async logout(state: ProjectState, bearerToken: string | undefined, scope: unknown): Promise<void> {
    const chosen = parseScope(scope);
    const auth = await openAuthTable(this.schemas, state.project.id);
    const { session } = await this.tokens.verifyBearer(state, bearerToken, auth);
    const nowMs = this.clock.now();
    await auth.db.transaction((tx) =>
      chosen === 'local'
        ? revokeSession(tx, session.id, nowMs)
        : revokeUserSessions(tx, session.userId, nowMs, chosen === 'others' ? session.id : undefined),
    );
  }

  /**
   * Admin: a user's live sessions (`current` is always false).
   * Throws AUTH_NOT_CONFIGURED, ROW_NOT_FOUND for an unknown user.
   */
  async listForUser(state: ProjectState, userId: string): Promise<SessionView[]> {
    const auth = await openAuthTable(this.schemas, state.project.id);
    if (!(await findUserById(auth.db, auth.table, userId))) throw userNotFound(auth.table.name, userId);
    return liveSessions(auth.db, userId, this.clock.now(), undefined);
  }

  /** Admin: ends every session of a user. Throws AUTH_NOT_CONFIGURED, ROW_NOT_FOUND for an unknown user. */
  async endForUser(state: ProjectState, userId: string): Promise<void> {
    const auth = await openAuthTable(this.schemas, state.project.id);
    if (!(await findUserById(auth.db, auth.table, userId))) throw userNotFound(auth.table.name, userId);
    const nowMs = this.clock.now();
    await auth.db.transaction((tx) => revokeUserSessions(tx, userId, nowMs));
  }
}

function liveOf(userId: string, nowMs: number): Expr {
  return sql.and(sql.eq('user_id', userId), sql.isNull(sql.column('revoked_at')), {
    kind: 'compare',
    op: '>',
    left: sql.column('expires_at'),
    right: sql.value(new Date(nowMs).toISOString(), 'text'),
  });
}

async function liveSessions(
  executor: Executor,
  userId: string,
  nowMs: number,
  currentId: string | undefined,
): Promise<SessionView[]> {
  const rows = await executor.all({
    kind: 'select',
    table: SESSIONS.table,
    columns: VIEW_COLUMNS,
    where: liveOf(userId, nowMs),
    orderBy: [
      { column: 'created_at', descending: false },
      { column: 'id', descending: false },
    ],
  });
  return rows.map((row) => ({
    id: String(row.id),
    created_at: String(row.created_at),
    last_used_at: (row.last_used_at as string | null) ?? null,
    user_agent: (row.user_agent as string | null) ?? null,
    current: row.id === currentId,
  }));
}

function parseScope(scope: unknown): LogoutScope {
  if (scope === undefined) return 'local';
  if (typeof scope === 'string' && (LOGOUT_SCOPES as readonly string[]).includes(scope)) return scope as LogoutScope;
  throw new AppError('VALIDATION_FAILED', {
    message: `scope: expected local, others or global, found ${JSON.stringify(scope)}.`,
    suggestion:
      'Use logout?scope=local (this session, the default), others (every other session) or global (all your sessions).',
  });
}

function userNotFound(table: string, userId: string): AppError {
  return new AppError('ROW_NOT_FOUND', {
    message: `No user of "${table}" has id "${userId}".`,
    suggestion: `List users with GET /p/{id}/api/${table} and the admin key.`,
  });
}
