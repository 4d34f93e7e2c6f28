/** The generated data API (/p/{id}/api/{table}): list, get, create, bulk, update, delete. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../app/services.js';
import type { RowContext } from '../../tables/row-service.js';
import { resolveCaller } from '../credentials.js';

type TableParams = { Params: { id: string; table: string } };
type RowParams = { Params: { id: string; table: string; rowId: string } };

export const BULK_BODY_LIMIT = 16 * 1024 * 1024;

export function registerDataRowRoutes(app: FastifyInstance, services: Services): void {
  const { registry, rows } = services;

  /** Project → credentials → the context every row operation takes. */
  const contextOf = async (request: FastifyRequest): Promise<RowContext> => {
    const { id } = request.params as { id: string };
    const state = await registry.get(id);
    const caller = await resolveCaller(request, state, registry, services.tokens);
    return { projectId: id, caller, minPasswordLength: state.settings.min_password_length };
  };

  app.get<TableParams>('/p/:id/api/:table', async (request) => {
    const page = await rows.list(await contextOf(request), request.params.table, request.query as Record<string, string>);
    return { data: page.rows, meta: { total: page.total, limit: page.limit, offset: page.offset } };
  });

  app.get<RowParams>('/p/:id/api/:table/:rowId', async (request) => {
    return { data: await rows.get(await contextOf(request), request.params.table, request.params.rowId) };
  });

  app.post<TableParams>('/p/:id/api/:table', async (request, reply) => {
    const row = await rows.create(await contextOf(request), request.params.table, request.body);
    reply.code(201);
    return { data: row };
  });

  app.post<TableParams>('/p/:id/api/:table/bulk', { bodyLimit: BULK_BODY_LIMIT }, async (request, reply) => {
    const created = await rows.bulkCreate(await contextOf(request), request.params.table, request.body);
    reply.code(201);
    return { data: created };
  });

  app.patch<RowParams>('/p/:id/api/:table/:rowId', async (request) => {
    return { data: await rows.update(await contextOf(request), request.params.table, request.params.rowId, request.body) };
  });

  app.delete<RowParams>('/p/:id/api/:table/:rowId', async (request, reply) => {
    await rows.delete(await contextOf(request), request.params.table, request.params.rowId);
    reply.code(204).send();
  });
}
