/** Auth endpoints for passwords: change-password, forgot-password, reset-password (contract §5). */
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth-service.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { authProject, bearerTokenOf } from '../auth-request.js';

type ProjectRoute = { Params: { id: string } };

/** What the password routes use: only these services. */
export interface AuthPasswordRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** The auth flows and their rate limits. */
  readonly auth: AuthService;
}

/**
 * Registers POST change-password (bearer), forgot-password and reset-password.
 * Errors: PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED, RATE_LIMITED, VALIDATION_*, AUTH_*.
 */
export function registerAuthPasswordRoutes(app: FastifyInstance, services: AuthPasswordRouteDeps): void {
  const { registry, auth } = services;

  app.post<ProjectRoute>('/p/:id/auth/change-password', async (request) => {
    // Limited per address like login: each call costs up to two argon2 runs from the slots every project shares.
    const state = await authProject(request, registry, auth, 'change-password');
    return auth.passwords.changePassword(state, bearerTokenOf(request), request.body);
  });

  app.post<ProjectRoute>('/p/:id/auth/forgot-password', async (request) => {
    const state = await authProject(request, registry, auth, 'forgot-password');
    // The request is stored durably before the answer; the mail is resolved from it in the background.
    return auth.passwords.forgotPassword(state, request.body);
  });

  app.post<ProjectRoute>('/p/:id/auth/reset-password', async (request) => {
    const state = await authProject(request, registry, auth, 'reset-password');
    return auth.passwords.resetPassword(state, request.body);
  });
}
