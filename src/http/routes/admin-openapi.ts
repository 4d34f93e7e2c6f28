/** GET /p/{id}/v1/openapi.json: the project's OpenAPI 3.1 document (contract §9), admin key only. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app/services.js';
import { requireAdminKey } from '../credentials.js';

type WithId = { Params: { id: string } };

/**
 * Registers GET /p/:id/v1/openapi.json. The document is built once per schema version and
 * sent as prepared JSON text. Throws PROJECT_NOT_FOUND, AUTH_REQUIRED, AUTH_INVALID_KEY.
 */
export function registerAdminOpenApiRoutes(app: FastifyInstance, services: Services): void {
  const { registry, openapi } = services;

  app.get<WithId>('/p/:id/v1/openapi.json', async (request, reply) => {
    requireAdminKey(request, await registry.get(request.params.id), registry);
    const { json } = await openapi.artefacts(request.params.id);
    return reply.type('application/json; charset=utf-8').send(json);
  });
}
