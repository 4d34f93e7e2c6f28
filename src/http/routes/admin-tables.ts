/** The schema API (/p/{id}/v1/tables), authorised by the project's X-Admin-Key. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SchemaService } from '../../tables/schema-service.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import type { TableDefinition } from '../../schema/definition.js';
import { tableETag } from '../../tables/table-version.js';
import { requireAdminKey } from '../credentials.js';
import { tablePreconditions } from '../table-preconditions.js';

type TableRoute = { Params: { id: string; table: string }; Querystring: { allow_destructive?: string } };

/** The client-facing view of a table definition. */
export function tableView(table: TableDefinition) {
  return {
    name: table.name,
    columns: table.columns,
    auth_table: table.auth_table,
    verify_email: table.verify_email,
    rules: table.rules,
    indexes: table.indexes,
    ...(table.search && { search: table.search }),
  };
}

/** Answers one table with its version in ETag, which If-Match on a later write can name. */
function tableAnswer(reply: FastifyReply, table: TableDefinition) {
  reply.header('etag', tableETag(table));
  return { data: tableView(table) };
}

/** What the admin table routes use: only these services. */
export interface AdminTableRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** Each project's tables. */
  readonly schemas: SchemaService;
}

/**
 * Registers the schema API: list, GET, PUT (declarative; If-Match / If-None-Match: *),
 * PATCH (only what the body names), DELETE. Throws (through the error handler) the codes of
 * SchemaService.putTable / patchTable / deleteTable, plus the admin-key errors.
 */
export function registerAdminTableRoutes(app: FastifyInstance, services: AdminTableRouteDeps): void {
  const { registry, schemas } = services;
  const admin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireAdminKey(request, await registry.get(id), registry);
  };
  const writeOptions = (request: FastifyRequest<TableRoute>) => ({
    allowDestructive: request.query.allow_destructive === 'true',
    preconditions: tablePreconditions(request.headers),
  });

  app.get<{ Params: { id: string } }>('/p/:id/v1/tables', { onRequest: admin }, async (request) => {
    const schema = await schemas.schema(request.params.id);
    return { data: [...schema.tables.values()].map((t) => tableView(t.definition)) };
  });

  app.put<TableRoute>('/p/:id/v1/tables/:table', { onRequest: admin }, async (request, reply) => {
    const result = await schemas.putTable(request.params.id, request.params.table, request.body, writeOptions(request));
    reply.code(result.created ? 201 : 200);
    return tableAnswer(reply, result.table);
  });

  app.patch<TableRoute>('/p/:id/v1/tables/:table', { onRequest: admin }, async (request, reply) => {
    const result = await schemas.patchTable(
      request.params.id,
      request.params.table,
      request.body,
      writeOptions(request),
    );
    return tableAnswer(reply, result.table);
  });

  app.get<TableRoute>('/p/:id/v1/tables/:table', { onRequest: admin }, async (request, reply) => {
    const table = await schemas.table(request.params.id, request.params.table);
    return tableAnswer(reply, table.definition);
  });

  app.delete<TableRoute>('/p/:id/v1/tables/:table', { onRequest: admin }, async (request, reply) => {
    await schemas.deleteTable(request.params.id, request.params.table);
    reply.code(204).send();
  });
}
