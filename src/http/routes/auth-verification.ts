/** Auth endpoints for email verification: GET verify, POST resend-verification (contract §5). */
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth-service.js';
import type { ProjectState, ProjectRegistry } from '../../projects/project-registry.js';
import { authProject, bearerTokenOf } from '../auth-request.js';
import { toAppError } from '../error-handler.js';
import { prefersHtml, registerPageStylesheet, sendVerificationPage } from '../verification-page.js';
import { withRequestPaths } from '../suggestion-paths.js';

type ProjectRoute = { Params: { id: string } };

/** What the verification routes use: only these services. */
export interface AuthVerificationRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** The auth flows and their rate limits. */
  readonly auth: AuthService;
}

/**
 * Registers GET verify?token= and POST resend-verification (bearer). A browser opening the
 * link (Accept: text/html) gets a page or the project's verify_redirect_url; others get JSON.
 * Errors: PROJECT_NOT_FOUND, AUTH_NOT_CONFIGURED, RATE_LIMITED, VALIDATION_FAILED, AUTH_*.
 */
export function registerAuthVerificationRoutes(app: FastifyInstance, services: AuthVerificationRouteDeps): void {
  const { registry, auth } = services;
  registerPageStylesheet(app);

  app.get<ProjectRoute>('/p/:id/auth/verify', async (request, reply) => {
    if (!prefersHtml(request.headers.accept)) {
      const state = await authProject(request, registry, auth, 'verify');
      return auth.verification.verify(state, request.query);
    }
    let state: ProjectState | undefined;
    try {
      state = await authProject(request, registry, auth, 'verify');
      const { user } = await auth.verification.verify(state, request.query);
      return sendVerificationPage(reply, state, { ok: true, email: String(user.email) });
    } catch (thrown) {
      const error = withRequestPaths(toAppError(thrown), request.params);
      if (error.status >= 500) request.log.error({ err: thrown }, 'request failed');
      return sendVerificationPage(reply, state, { ok: false, error });
    }
  });

  app.post<ProjectRoute>('/p/:id/auth/resend-verification', async (request) => {
    const state = await authProject(request, registry, auth, 'resend-verification');
    return auth.verification.resend(state, bearerTokenOf(request));
  });
}
