/** Auth endpoints for email verification: GET verify, POST resend-verification (contract §5). */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.js';
import { authProject, bearerTokenOf } from '../auth-request.js';

type ProjectRoute = { Params: { id: string } };

/**
 * Registers GET verify?token= and POST resend-verification (bearer).
 * Errors: PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED, RATE_LIMITED, VALIDATION_FAILED, AUTH_*.
 */
export function registerAuthVerificationRoutes(app: FastifyInstance, services: Services): void {
  const { registry, auth } = services;

  app.get<ProjectRoute>('/p/:id/auth/verify', async (request) => {
    const state = await authProject(request, registry, auth, 'verify');
    return auth.verification.verify(state, request.query);
  });

  app.post<ProjectRoute>('/p/:id/auth/resend-verification', async (request) => {
    const state = await authProject(request, registry, auth, 'resend-verification');
    return auth.verification.resend(state, bearerTokenOf(request));
  });
}
