/** The platform API (/v1/projects), authorised by X-Platform-Key. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PlatformKey } from '../../projects/platform-key.js';
import type { SchemaService } from '../../tables/schema-service.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { AppError } from '../../errors/app-error.js';
import { parsePaging } from '../../query/list-params.js';
import { requirePlatformKey } from '../credentials.js';

type WithId = { Params: { id: string } };

/** What the platform project routes use: only these services. */
export interface PlatformProjectRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** Each project's tables. */
  readonly schemas: SchemaService;
  /** The platform key that creates and lists projects. */
  readonly platformKey: PlatformKey;
}

export function registerPlatformProjectRoutes(app: FastifyInstance, services: PlatformProjectRouteDeps): void {
  const { registry, schemas, platformKey } = services;
  const guard = async (request: FastifyRequest) => requirePlatformKey(request, platformKey);

  app.post('/v1/projects', { onRequest: guard }, async (request, reply) => {
    const body = (request.body ?? {}) as { name?: unknown; id?: unknown };
    if (typeof body !== 'object' || Array.isArray(body))
      throw new AppError('VALIDATION_FAILED', { message: 'The body must be {"name": "..."}.' });
    const created = await registry.create(body);
    reply.code(201);
    return {
      data: {
        id: created.project.id,
        name: created.project.name,
        admin_key: created.adminKey,
        publishable_key: created.publishableKey,
        created_at: created.project.created_at,
      },
    };
  });

  app.get('/v1/projects', { onRequest: guard }, async (request) => {
    const { limit, offset } = parsePaging(request.query as Record<string, string>);
    const { items, total } = await registry.list(limit, offset);
    return { data: items, meta: { total, limit, offset } };
  });

  app.get<WithId>('/v1/projects/:id', { onRequest: guard }, async (request) => {
    const { project } = await registry.get(request.params.id);
    return { data: project };
  });

  app.delete<WithId>('/v1/projects/:id', { onRequest: guard }, async (request, reply) => {
    await registry.delete(request.params.id);
    schemas.invalidate(request.params.id);
    reply.code(204).send();
  });
}
