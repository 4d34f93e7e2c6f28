/**
 * Session management (contract §13): the bearer's sessions (GET /auth/sessions, DELETE
 * /auth/sessions/{session_id}) and, with the admin key, one user's sessions
 * (GET/DELETE /v1/users/{user_id}/sessions).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { SchemaService } from '../../tables/schema-service.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { SessionList } from '../../auth/session-list.js';
import { authProject, bearerTokenOf } from '../auth-request.js';
import { requireAdminKey } from '../credentials.js';

type ProjectRoute = { Params: { id: string } };
type SessionRoute = { Params: { id: string; sessionId: string } };
type UserRoute = { Params: { id: string; userId: string } };

/** What the session list routes use: only these services. */
export interface SessionListRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** The auth flows and their rate limits. */
  readonly auth: AuthService;
  /** Each project's tables. */
  readonly schemas: SchemaService;
  /** The clock (tests replace it). */
  readonly clock: Clock;
}

/**
 * Registers GET /p/:id/auth/sessions, DELETE /p/:id/auth/sessions/:sessionId (204) and the
 * admin GET/DELETE /p/:id/v1/users/:userId/sessions. Returns the SessionList so that logout
 * can end sessions by scope. Errors: PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED, AUTH_*, ROW_NOT_FOUND.
 */
export function registerSessionListRoutes(app: FastifyInstance, services: SessionListRouteDeps): SessionList {
  const { registry, auth } = services;
  const sessions = new SessionList(services.schemas, auth.tokens, services.clock);
  const admin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireAdminKey(request, await registry.get(id), registry);
  };

  app.get<ProjectRoute>('/p/:id/auth/sessions', async (request) => {
    const state = await authProject(request, registry, auth);
    return { data: await sessions.list(state, bearerTokenOf(request)) };
  });

  app.delete<SessionRoute>('/p/:id/auth/sessions/:sessionId', async (request, reply) => {
    const state = await authProject(request, registry, auth);
    await sessions.end(state, bearerTokenOf(request), request.params.sessionId);
    reply.code(204).send();
  });

  app.get<UserRoute>('/p/:id/v1/users/:userId/sessions', { onRequest: admin }, async (request) => {
    return { data: await sessions.listForUser(await registry.get(request.params.id), request.params.userId) };
  });

  app.delete<UserRoute>('/p/:id/v1/users/:userId/sessions', { onRequest: admin }, async (request, reply) => {
    await sessions.endForUser(await registry.get(request.params.id), request.params.userId);
    reply.code(204).send();
  });
  return sessions;
}
