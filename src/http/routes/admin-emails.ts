/** The project's outbox listing (GET /p/{id}/v1/emails), authorised by X-Admin-Key. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MailQueue } from '../../email/mail-queue.js';
import type { ProjectRegistry } from '../../projects/project-registry.js';
import { requireAdminKey } from '../credentials.js';
import { parsePaging } from '../../query/list-params.js';

type WithId = { Params: { id: string } };

/** What the admin email routes use: only these services. */
export interface AdminEmailRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** The mail queue (outbox or SMTP). */
  readonly mail: MailQueue;
}

/**
 * Registers GET /p/:id/v1/emails: the project's mails, newest first, in the list envelope.
 * Items are `{ id, to, subject, text, html, created_at, status }`. Throws PROJECT_NOT_FOUND,
 * AUTH_REQUIRED, AUTH_INVALID_KEY, VALIDATION_FILTER (bad limit/offset).
 */
export function registerAdminEmailRoutes(app: FastifyInstance, services: AdminEmailRouteDeps): void {
  const { registry, mail } = services;
  const admin = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    requireAdminKey(request, await registry.get(id), registry);
  };

  app.get<WithId>('/p/:id/v1/emails', { onRequest: admin }, async (request) => {
    const { limit, offset } = parsePaging(request.query as Record<string, string>);
    const { items, total } = await mail.list(request.params.id, limit, offset);
    return { data: items, meta: { total, limit, offset } };
  });
}
