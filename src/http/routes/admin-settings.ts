/** Project settings (contract §3): PUT redirect-origins, GET and PATCH settings; X-Admin-Key. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { AppError } from '../../errors/app-error.js';
import { applySettingsPatch } from '../../projects/settings.js';
import { requireAdminKey } from '../credentials.js';

type ProjectRoute = { Params: { id: string } };

/** What the admin settings routes use: only these services. */
export interface AdminSettingsRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
}

/**
 * Registers PUT redirect-origins, GET settings and PATCH settings (admin key).
 * Errors: PROJECT_NOT_FOUND, AUTH_REQUIRED, AUTH_INVALID_KEY, VALIDATION_FAILED.
 */
export function registerAdminSettingsRoutes(app: FastifyInstance, services: AdminSettingsRouteDeps): void {
  const { registry } = services;
  const admin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireAdminKey(request, await registry.get(id), registry);
  };

  app.put<ProjectRoute>('/p/:id/v1/redirect-origins', { onRequest: admin }, async (request) => {
    const body = request.body as { allowed_redirect_origins?: unknown } | null | undefined;
    const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
    if (!isObject || !Array.isArray(body.allowed_redirect_origins) || Object.keys(body).length !== 1) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'The body must be {"allowed_redirect_origins": [origin, ...]} and nothing else.',
        suggestion: 'Send e.g. {"allowed_redirect_origins": ["https://app.example.com", "http://localhost:3000"]}.',
      });
    }
    const state = await registry.get(request.params.id);
    const settings = applySettingsPatch(state.settings, { allowed_redirect_origins: body.allowed_redirect_origins });
    await registry.saveSettings(state.project.id, settings);
    return { data: { allowed_redirect_origins: settings.allowed_redirect_origins } };
  });

  app.get<ProjectRoute>('/p/:id/v1/settings', { onRequest: admin }, async (request) => {
    return { data: (await registry.get(request.params.id)).settings };
  });

  app.patch<ProjectRoute>('/p/:id/v1/settings', { onRequest: admin }, async (request) => {
    const state = await registry.get(request.params.id);
    const settings = applySettingsPatch(state.settings, request.body);
    await registry.saveSettings(state.project.id, settings);
    return { data: settings };
  });
}
