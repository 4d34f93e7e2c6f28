/**
 * Dashboard sessions (contract §12): POST /v1/dashboard/sessions exchanges the platform key or
 * a project's admin key for a dashboard token; GET and DELETE /v1/dashboard/sessions/current
 * read and sign out the token sent in X-Dashboard-Token. Documented in docs/dashboard.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import type { DashboardGrant, DashboardTokens } from '../../projects/dashboard-tokens.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { proveKeyForDashboard } from '../credentials.js';
import { DASHBOARD_TOKEN_HEADER, dashboardGrantOf } from '../dashboard-token.js';

/** What the dashboard session routes need: the keys to check and the token store. */
export interface DashboardSessionDeps {
  readonly registry: ProjectRegistry;
  readonly tokens: DashboardTokens;
}

/** Registers POST /v1/dashboard/sessions and GET, DELETE /v1/dashboard/sessions/current. */
export function registerDashboardSessionRoutes(app: FastifyInstance, { registry, tokens }: DashboardSessionDeps): void {
  app.post('/v1/dashboard/sessions', async (request, reply) => {
    const projectId = parseProjectId(request.body);
    const scope = await proveKeyForDashboard(request, registry, projectId);
    const issued = await tokens.issue(scope);
    reply.code(201);
    return { data: { token: issued.token, ...describe(issued) } };
  });

  app.get('/v1/dashboard/sessions/current', async (request) => ({ data: describe(requireToken(request)) }));

  app.delete('/v1/dashboard/sessions/current', async (request, reply) => {
    requireToken(request);
    await tokens.revoke(String(request.headers[DASHBOARD_TOKEN_HEADER]));
    reply.code(204).send();
  });
}

/** The public shape of a grant (never the token, which only the exchange answer carries). */
function describe(grant: DashboardGrant): {
  expires_at: string;
  scope: 'platform' | 'project';
  project_id: string | null;
} {
  return {
    expires_at: grant.expiresAt,
    scope: grant.scope.kind,
    project_id: grant.scope.kind === 'project' ? grant.scope.projectId : null,
  };
}

/** The grant of the request's token. Throws AUTH_REQUIRED without one, its refusal for a bad one. */
function requireToken(request: FastifyRequest): DashboardGrant {
  const grant = dashboardGrantOf(request);
  if (grant === undefined) {
    throw new AppError('AUTH_REQUIRED', {
      message: 'This endpoint is about the dashboard token sent with it, and none was sent.',
      suggestion: 'Send X-Dashboard-Token: rbd_... (from POST /v1/dashboard/sessions).',
    });
  }
  return grant;
}

/** `project_id` of an exchange body (absent, {} or null body: none). Throws VALIDATION_FAILED. */
function parseProjectId(body: unknown): string | undefined {
  const example = 'Send {} with X-Platform-Key, or {"project_id": "demo"} with X-Admin-Key.';
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AppError('VALIDATION_FAILED', { message: 'The body must be a JSON object.', suggestion: example });
  const { project_id: projectId, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new AppError('VALIDATION_FAILED', {
      message: `${unknown}: is not a field of a dashboard sign-in.`,
      suggestion: example,
    });
  if (projectId === undefined || projectId === null) return undefined;
  if (typeof projectId !== 'string' || projectId === '')
    throw new AppError('VALIDATION_FAILED', {
      message: 'project_id: must be a project id string.',
      suggestion: example,
    });
  return projectId;
}
