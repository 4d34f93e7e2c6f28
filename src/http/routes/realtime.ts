/**
 * Realtime (contract §11): `GET /p/{id}/realtime` opens a Server-Sent Events stream (no
 * credentials, so a browser EventSource can open it) and `POST /p/{id}/realtime` binds the
 * caller's identity and topics to it. The hub (src/realtime/) does the rest.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SchemaService } from '../../tables/schema-service.js';
import { AppError } from '../../errors/app-error.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import type { ProjectRegistry, ProjectState } from '../../projects/project-registry.js';
import type { BoundIdentity } from '../../realtime/realtime-client.js';
import type { RealtimeHub } from '../../realtime/realtime-hub.js';
import { parseTopic } from '../../realtime/topics.js';
import type { Caller } from '../../tables/caller.js';
import { setCorsHeaders } from '../cors.js';
import { buildSseSink } from '../sse-sink.js';
import { resolveCaller, type AccessTokenVerifier } from '../credentials.js';
import { dashboardGrantOf } from '../dashboard-token.js';

type ProjectParams = { Params: { id: string } };

/** What the realtime routes use besides the hub (their own argument): only these services. */
export interface RealtimeRouteDeps {
  /** The projects, their keys and settings. */
  readonly registry: ProjectRegistry;
  /** Verifies user access tokens; undefined when no project can issue them. */
  readonly tokens: AccessTokenVerifier | undefined;
  /** Each project's tables. */
  readonly schemas: SchemaService;
  /** The clock (tests replace it). */
  readonly clock: Clock;
}

/** Registers GET and POST /p/:id/realtime. */
export function registerRealtimeRoutes(app: FastifyInstance, services: RealtimeRouteDeps, hub: RealtimeHub): void {
  const { registry } = services;

  // No HEAD twin (Fastify adds one per GET route by default): a stream is its body, and the
  // socket sink writes frames straight to the connection, which after a bodiless HEAD answer
  // would reach a keep-alive client as the start of its next response.
  app.get<ProjectParams>('/p/:id/realtime', { exposeHeadRoute: false }, async (request, reply) => {
    const state = await registry.get(request.params.id);
    // Refusals (503 past the client limit) are still ordinary answers before the stream starts.
    await hub.prepare(state.project.id);
    const lastEventId = header(request, 'last-event-id');
    const origin = request.headers.origin;
    if (origin !== undefined) setCorsHeaders(reply, state.settings.cors_origins, origin);
    reply.header('x-request-id', request.id);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and similar proxies must pass events through as they come.
      'x-accel-buffering': 'no',
    });
    raw.socket?.setNoDelay(true);
    try {
      const client = await hub.connect(state.project.id, buildSseSink(raw), lastEventId);
      raw.on('close', () => client.disconnected());
    } catch (error) {
      // Headers are sent: the refusal (503 past the client limit) travels as the stream ending.
      raw.end(`event: error\ndata: ${JSON.stringify({ error: errorBody(error) })}\n\n`);
    }
  });

  app.post<ProjectParams>('/p/:id/realtime', async (request) => {
    const state = await registry.get(request.params.id);
    const projectId = state.project.id;
    // Read before the credentials are checked: an identity that ends after this number ends the binding.
    const mark = await hub.mark(projectId);
    const caller = await resolveCaller(request, state, registry, services.tokens);
    const body = parseBody(request.body, hub.limits.maxSubscriptions);
    const client = hub.find(projectId, body.client_id);
    if (!client) {
      throw new AppError('REALTIME_CLIENT_NOT_FOUND', {
        message: `No open realtime stream has the client id "${body.client_id}" in this project.`,
        suggestion: `Open GET /p/${projectId}/realtime, then send the client_id of its connect event.`,
      });
    }
    const schema = await services.schemas.schema(projectId);
    const now = isoNow(services.clock);
    const topics = [...new Set(body.subscriptions)].map((topic) => parseTopic(topic, schema.tables, caller, now));
    await hub.bind(
      client,
      bindIdentity(request, state, registry, caller, mark),
      topics,
      body.since ?? client.lastEventId,
    );
    return { data: { client_id: client.id, subscriptions: body.subscriptions } };
  });
}

/** An admin-powered hub check needs the presented key again later: kept in memory, never logged. */
function bindIdentity(
  request: FastifyRequest,
  state: ProjectState,
  registry: ProjectRegistry,
  caller: Caller,
  mark: number,
): BoundIdentity {
  const platformKey = header(request, 'x-platform-key');
  const adminKey = header(request, 'x-admin-key');
  const apiKey = header(request, 'x-api-key');
  // resolveCaller accepted the token: it lasts until its expiry, or until the sk_ key it came from is rotated out.
  const dashboard = dashboardGrantOf(request);
  if (dashboard !== undefined) {
    const { scope } = dashboard;
    return identity(
      caller,
      mark,
      Date.parse(dashboard.expiresAt),
      (current) => scope.kind === 'platform' || registry.liveKey(current, scope.keyId) !== undefined,
    );
  }
  if (platformKey !== undefined) return identity(caller, mark, undefined, () => true);
  if (adminKey !== undefined)
    return identity(caller, mark, undefined, (current) => registry.matchKey(current, adminKey)?.type === 'sk');
  if (caller.kind === 'user') {
    const secret = state.jwtSecret;
    return identity(
      caller,
      mark,
      tokenExpiry(header(request, 'authorization')),
      (current) => current.jwtSecret === secret,
    );
  }
  return identity(
    caller,
    mark,
    undefined,
    (current) => apiKey !== undefined && registry.matchKey(current, apiKey)?.type === 'pk',
  );
}

function identity(
  caller: Caller,
  mark: number,
  expiresAtMs: number | undefined,
  stillValid: (state: ProjectState) => boolean,
): BoundIdentity {
  return { caller, expiresAtMs, boundAfterSeq: mark, stillValid };
}

/** The `exp` of a bearer token already verified by resolveCaller, in ms. */
function tokenExpiry(authorization: string | undefined): number | undefined {
  const payload = authorization?.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

interface SubscribeBody {
  readonly client_id: string;
  readonly subscriptions: string[];
  readonly since?: string;
}

function parseBody(body: unknown, maxSubscriptions: number): SubscribeBody {
  const example =
    'Send {"client_id": "<from the connect event>", "subscriptions": ["tasks", ' +
    '"tasks/ROW_ID", "tasks?filter=done%20%3D%20false"], "since"?: "<event id>"}.';
  const fail = (message: string, suggestion = example) => new AppError('VALIDATION_FAILED', { message, suggestion });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail('The body must be a JSON object.');
  const { client_id: clientId, subscriptions, since, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw fail(`${unknown}: is not a field of a subscription call.`);
  if (typeof clientId !== 'string' || clientId === '')
    throw fail("client_id: must be the client_id string of the stream's connect event.");
  if (!Array.isArray(subscriptions) || subscriptions.some((topic) => typeof topic !== 'string'))
    throw fail('subscriptions: must be an array of topic strings ([] removes them all).');
  if (subscriptions.length > maxSubscriptions) {
    throw fail(
      `subscriptions: at most ${maxSubscriptions} topics per client; this call has ${subscriptions.length}.`,
      'Subscribe to the whole table, or use a filter topic that covers several rows, or open a second stream.',
    );
  }
  if (since !== undefined && since !== null && typeof since !== 'string')
    throw fail('since: must be the id of the last event received, as a string.');
  return { client_id: clientId, subscriptions: subscriptions as string[], ...(typeof since === 'string' && { since }) };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function errorBody(error: unknown): { code: string; message: string; suggestion: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message, suggestion: error.suggestion };
  return { code: 'INTERNAL_ERROR', message: 'The stream could not be opened.', suggestion: 'Retry in a few seconds.' };
}
