/** Auth endpoints that sign users in and out: signup, login, refresh, me, logout (contract §5). */
import type { FastifyInstance } from 'fastify';
import { authProject, bearerTokenOf } from '../auth-request.js';
import { registerSessionListRoutes, type SessionListRouteDeps } from './auth-sessions-list.js';

type ProjectRoute = { Params: { id: string } };

/** What the sign-in routes use: the session list's services (registry, auth, schemas, clock). */
export type AuthSessionRouteDeps = SessionListRouteDeps;

/**
 * Registers POST signup (201), POST login, POST refresh, GET me, POST logout (204; `?scope=local|others|global`)
 * and the session list routes (auth-sessions-list.ts).
 * Errors: PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED, RATE_LIMITED, VALIDATION_*, AUTH_*.
 */
export function registerAuthSessionRoutes(app: FastifyInstance, services: AuthSessionRouteDeps): void {
  const { registry, auth } = services;
  const sessionList = registerSessionListRoutes(app, services);

  app.post<ProjectRoute>('/p/:id/auth/signup', async (request, reply) => {
    const state = await authProject(request, registry, auth, 'signup');
    const signedIn = await auth.sessions.signUp(state, request.body, request.headers['user-agent']);
    reply.code(201);
    return signedIn;
  });

  app.post<ProjectRoute>('/p/:id/auth/login', async (request) => {
    const state = await authProject(request, registry, auth, 'login');
    return auth.sessions.login(state, request.body, request.headers['user-agent']);
  });

  app.post<ProjectRoute>('/p/:id/auth/refresh', async (request) => {
    const state = await authProject(request, registry, auth);
    return auth.sessions.refresh(state, request.body);
  });

  app.get<ProjectRoute>('/p/:id/auth/me', async (request) => {
    const state = await authProject(request, registry, auth);
    return auth.sessions.me(state, bearerTokenOf(request));
  });

  app.post<ProjectRoute>('/p/:id/auth/logout', async (request, reply) => {
    const state = await authProject(request, registry, auth);
    await sessionList.logout(state, bearerTokenOf(request), (request.query as Record<string, unknown>).scope);
    reply.code(204).send();
  });
}
