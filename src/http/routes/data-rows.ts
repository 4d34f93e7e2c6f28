/** The generated data API (/p/{id}/api/{table}): list, get, create, bulk, update, delete. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataRateLimits } from '../../auth/data-rate-limits.js';
import type { ProjectState, ProjectRegistry } from '../../projects/project-registry.js';
import type { Caller } from '../../tables/caller.js';
import type { RowBatch } from '../../tables/row-batch.js';
import { BATCH_TABLE_NAME } from '../../tables/batch-request.js';
import type { FilterQuery, RowContext, RowService } from '../../tables/row-service.js';
import { AppError } from '../../errors/app-error.js';
import { noRouteError } from '../allowed-methods.js';
import { resolveCaller, type AccessTokenVerifier } from '../credentials.js';
import { createHmac } from 'node:crypto';

type TableParams = { Params: { id: string; table: string } };
type RowParams = { Params: { id: string; table: string; rowId: string } };

export const BULK_BODY_LIMIT = 16 * 1024 * 1024;
/**
 * The path segment of bulk creates: a row id route never takes it (405 METHOD_NOT_ALLOWED with Allow: POST, OPTIONS).
 */
const BULK_SEGMENT = 'bulk';

/**
 * The key that signs a project's list cursors, derived from its JWT secret (rotating the secret retires old cursors).
 */
const cursorKeys = new Map<string, string>();
function cursorKeyOf(jwtSecret: string): string {
  let key = cursorKeys.get(jwtSecret);
  if (key === undefined) {
    if (cursorKeys.size > 10_000) cursorKeys.clear();
    key = createHmac('sha256', jwtSecret).update('rowbase-list-cursor').digest('base64url');
    cursorKeys.set(jwtSecret, key);
  }
  return key;
}

const JSON_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyRequest {
    /** The row context, set by the data routes' onRequest hook before the handler runs (null elsewhere). */
    rowContext: RowContext | null;
  }
}

/** An answer already serialised (by the table's compiled serialisers): Fastify sends a JSON-typed string as it is. */
function asJson(reply: FastifyReply, text: string): string {
  reply.header('content-type', JSON_TYPE);
  return text;
}

/** What the data API routes use: only these services. */
export interface DataRowRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** Reads and writes rows. */
  readonly rows: RowService;
  /** Runs transactional batches of row writes. */
  readonly batch: RowBatch;
  /** Verifies user access tokens; undefined when no project can issue them. */
  readonly tokens: AccessTokenVerifier | undefined;
  /** The project's `data_rate_limits`, counted before any row work. */
  readonly dataRateLimits: DataRateLimits;
}

export function registerDataRowRoutes(app: FastifyInstance, services: DataRowRouteDeps): void {
  const { registry, rows } = services;
  // Filled by the onRequest hook: credentials are checked before Fastify reads a body, so an
  // anonymous client cannot make the server buffer and parse 16 MiB it will refuse anyway.
  // A request decorator rather than a WeakMap: no ephemeron entry to make and collect per request.
  app.decorateRequest('rowContext', null);
  const setContext = (request: FastifyRequest, context: RowContext): void => {
    request.rowContext = context;
  };

  const contextFor = (projectId: string, state: ProjectState, caller: Caller): RowContext => ({
    projectId,
    caller,
    minPasswordLength: state.settings.min_password_length,
    cursorKey: cursorKeyOf(state.jwtSecret),
  });
  /** The context once the request passed the project's data rate limit (a promise only when one applies). */
  const limitedContext = (
    request: FastifyRequest,
    projectId: string,
    state: ProjectState,
    caller: Caller,
  ): RowContext | Promise<RowContext> => {
    const access = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
    const counted = services.dataRateLimits.check(state, access, caller, request.ip);
    const context = contextFor(projectId, state, caller);
    return counted === undefined ? context : counted.then(() => context);
  };
  /**
   * Project → credentials → the context every row operation takes. Synchronous when the
   * project's cached state is current and the caller presents a key (the usual request):
   * no promise and no turn of the microtask queue; otherwise a promise.
   */
  const contextNow = (request: FastifyRequest): RowContext | Promise<RowContext> => {
    // A declared size over the limit is refused before anything else, storage included.
    // (Fastify builds a fresh routeOptions object on every read: reads, which send no body, skip it.)
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > request.routeOptions.bodyLimit!)
      throw new AppError('PAYLOAD_TOO_LARGE');
    const { id } = request.params as { id: string };
    const cached = registry.peek(id);
    if (cached) {
      const caller = resolveCaller(request, cached, registry, services.tokens);
      return caller instanceof Promise
        ? caller.then((c) => limitedContext(request, id, cached, c))
        : limitedContext(request, id, cached, caller);
    }
    return registry
      .get(id)
      .then(async (state) =>
        limitedContext(request, id, state, await resolveCaller(request, state, registry, services.tokens)),
      );
  };
  /** The onRequest hook of reads, updates and deletes (a callback hook, so the synchronous path stays synchronous). */
  const resolveContext = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    if ((request.params as { rowId?: string }).rowId === BULK_SEGMENT) {
      // `/bulk` is reserved (POST only), not the id of a row: the router's answer for the path.
      done(noRouteError(request.server, request.method, request.url));
      return;
    }
    let context: RowContext | Promise<RowContext>;
    try {
      context = contextNow(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (context instanceof Promise) {
      context.then((resolved) => {
        setContext(request, resolved);
        done();
      }, done);
      return;
    }
    setContext(request, context);
    done();
  };
  /** For writes that create rows: also refuse a locked create rule (or unknown table) before the body. */
  const resolveCreateContext = async (request: FastifyRequest): Promise<void> => {
    setContext(request, await contextNow(request));
    await rows.checkCreateAllowed(contextOf(request), (request.params as { table: string }).table);
  };
  const contextOf = (request: FastifyRequest): RowContext => request.rowContext!;
  const read = { onRequest: resolveContext };
  const create = { onRequest: resolveCreateContext };

  app.get<TableParams>('/p/:id/api/:table', read, async (request, reply) => {
    const page = await rows.list(contextOf(request), request.params.table, request.query as Record<string, string>);
    const body = {
      data: page.rows,
      meta: { total: page.total, limit: page.limit, offset: page.offset, next_cursor: page.nextCursor },
    };
    return page.json ? asJson(reply, page.json.page(body)) : body;
  });

  app.get<RowParams>('/p/:id/api/:table/:rowId', read, async (request, reply) => {
    const { row, json } = await rows.get(
      contextOf(request),
      request.params.table,
      request.params.rowId,
      request.query as Record<string, string>,
    );
    const body = { data: row };
    return json ? asJson(reply, json.one(body)) : body;
  });

  /** `?on_conflict=<column>` (contract §18): 201 for an insert, 200 for an update; /bulk answers 200. */
  const upsert = async (request: FastifyRequest<TableParams>, reply: FastifyReply, bulk: boolean) => {
    const onConflict = (request.query as Record<string, unknown>).on_conflict;
    const written = await rows.upsert(contextOf(request), request.params.table, request.body, onConflict, bulk);
    reply.code(!bulk && written.rows[0]!.inserted ? 201 : 200);
    return asJson(reply, written.json);
  };
  const isUpsert = (request: FastifyRequest): boolean =>
    (request.query as Record<string, unknown>).on_conflict !== undefined;

  app.post<TableParams>('/p/:id/api/:table', create, async (request, reply) => {
    if (isUpsert(request)) return upsert(request, reply, false);
    const created = await rows.create(contextOf(request), request.params.table, request.body);
    reply.code(201);
    return asJson(reply, created.json);
  });

  app.post<TableParams>(
    `/p/:id/api/:table/${BULK_SEGMENT}`,
    { ...create, bodyLimit: BULK_BODY_LIMIT },
    async (request, reply) => {
      if (isUpsert(request)) return upsert(request, reply, true);
      const created = await rows.bulkCreate(contextOf(request), request.params.table, request.body);
      reply.code(201);
      return asJson(reply, created.json);
    },
  );

  // POST only: an older table named "batch" keeps its GET, PATCH and DELETE paths (docs/api.md).
  app.post<{ Params: { id: string } }>(
    `/p/:id/api/${BATCH_TABLE_NAME}`,
    { onRequest: resolveContext, bodyLimit: BULK_BODY_LIMIT },
    async (request) => ({ data: await services.batch.run(contextOf(request), request.body) }),
  );

  app.patch<RowParams>('/p/:id/api/:table/:rowId', read, async (request) => {
    return { data: await rows.update(contextOf(request), request.params.table, request.params.rowId, request.body) };
  });

  app.delete<RowParams>('/p/:id/api/:table/:rowId', read, async (request, reply) => {
    await rows.delete(contextOf(request), request.params.table, request.params.rowId);
    reply.code(204).send();
  });

  registerFilterWriteRoutes(app, rows, read, contextOf);
}

/** Update and delete by filter (contract §18): `PATCH|DELETE /p/{id}/api/{table}?filter=...` → `{data: {count}}`. */
function registerFilterWriteRoutes(
  app: FastifyInstance,
  rows: RowService,
  read: { onRequest: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void },
  contextOf: (request: FastifyRequest) => RowContext,
): void {
  app.patch<TableParams>('/p/:id/api/:table', read, async (request) => {
    const query = request.query as FilterQuery;
    return { data: { count: await rows.updateWhere(contextOf(request), request.params.table, query, request.body) } };
  });
  app.delete<TableParams>('/p/:id/api/:table', read, async (request) => {
    const query = request.query as FilterQuery;
    return { data: { count: await rows.deleteWhere(contextOf(request), request.params.table, query) } };
  });
}
