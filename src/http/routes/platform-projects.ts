/** The platform API (/v1/projects), authorised by X-Platform-Key. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../app/services.js';
import { AppError } from '../../errors/app-error.js';
import { requirePlatformKey } from '../credentials.js';

type WithId = { Params: { id: string } };

/** Parses limit/offset query values for simple listings (default 50, clamped to 1000). */
export function parsePaging(query: unknown): { limit: number; offset: number } {
  const q = (query ?? {}) as Record<string, unknown>;
  const read = (name: string, fallback: number): number => {
    const raw = q[name];
    if (raw === undefined) return fallback;
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n)) {
      throw new AppError('VALIDATION_FILTER', { message: `${name}: must be a whole number of 0 or more.`, suggestion: `Send e.g. ?${name}=${fallback}.` });
    }
    return n;
  };
  return { limit: Math.min(read('limit', 50), 1000), offset: read('offset', 0) };
}

export function registerPlatformProjectRoutes(app: FastifyInstance, services: Services): void {
  const { registry, schemas, platformKey } = services;
  const guard = async (request: FastifyRequest) => requirePlatformKey(request, platformKey);

  app.post('/v1/projects', { onRequest: guard }, async (request, reply) => {
    const body = (request.body ?? {}) as { name?: unknown; id?: unknown };
    if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('VALIDATION_FAILED', { message: 'The body must be {"name": "..."}.' });
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
    const { limit, offset } = parsePaging(request.query);
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
