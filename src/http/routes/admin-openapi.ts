/**
 * GET /p/{id}/v1/openapi.json: the project's OpenAPI 3.1 document (contract §9) as the caller's
 * key sees the API: the whole API for the admin (or platform) key, the operations an anonymous
 * client may call for the pk_ key (so the API reference can be shared with front-end developers).
 */
import type { FastifyInstance } from 'fastify';
import type { ProjectDocuments } from '../../openapi/project-documents.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { requireAdminOrPublishableKey } from '../credentials.js';

type WithId = { Params: { id: string } };

/** What the admin OpenAPI routes use: only these services. */
export interface AdminOpenApiRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** Each project's OpenAPI document and type declarations. */
  readonly openapi: ProjectDocuments;
}

/**
 * Registers GET /p/:id/v1/openapi.json. Each document is built once per schema version and
 * sent as prepared JSON text. Throws PROJECT_NOT_FOUND, AUTH_REQUIRED, AUTH_INVALID_KEY.
 */
export function registerAdminOpenApiRoutes(app: FastifyInstance, services: AdminOpenApiRouteDeps): void {
  const { registry, openapi } = services;

  app.get<WithId>('/p/:id/v1/openapi.json', async (request, reply) => {
    const audience = requireAdminOrPublishableKey(request, await registry.get(request.params.id), registry);
    const artefacts = await openapi.artefacts(request.params.id);
    return reply
      .type('application/json; charset=utf-8')
      .send(audience === 'admin' ? artefacts.json : artefacts.publicJson());
  });
}
