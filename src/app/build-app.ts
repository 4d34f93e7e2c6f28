/**
 * The composition root: buildApp(config) returns a Fastify instance that is not listening.
 * Reading this file top to bottom is the table of contents of the HTTP API.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { noRouteError } from '../http/allowed-methods.js';
import { buildConnectHandler, handleClientError } from '../http/client-errors.js';
import { applyCors, registerCors } from '../http/cors.js';
import { registerErrorHandling, sendError, toAppError } from '../http/error-handler.js';
import { registerJsonBodyParser } from '../http/json-body.js';
import { buildLoggerOptions, lazyChildLogger, registerRequestLines } from '../http/logging.js';
import { registerAdminEmailRoutes } from '../http/routes/admin-emails.js';
import { registerAdminKeyRoutes } from '../http/routes/admin-keys.js';
import { registerAdminOpenApiRoutes } from '../http/routes/admin-openapi.js';
import { registerAdminSettingsRoutes } from '../http/routes/admin-settings.js';
import { registerAdminTableRoutes } from '../http/routes/admin-tables.js';
import { registerApiDocsRoutes } from '../http/routes/api-docs.js';
import { registerAuthPasswordRoutes } from '../http/routes/auth-password.js';
import { registerAuthSessionRoutes } from '../http/routes/auth-session.js';
import { registerAuthVerificationRoutes } from '../http/routes/auth-verification.js';
import { registerDashboardTokenCheck } from '../http/dashboard-token.js';
import { registerDashboardRoutes } from '../http/routes/dashboard.js';
import { registerDashboardSessionRoutes } from '../http/routes/dashboard-sessions.js';
import { registerDataRowRoutes } from '../http/routes/data-rows.js';
import { registerHealthRoutes } from '../http/routes/health.js';
import { registerPlatformProjectRoutes } from '../http/routes/platform-projects.js';
import { registerRealtimeRoutes } from '../http/routes/realtime.js';
import { buildServices, type ServiceOptions, type Services } from './services.js';

export const BODY_LIMIT = 1024 * 1024;

export interface BuiltApp {
  readonly app: FastifyInstance;
  readonly services: Services;
}

/** What tests may replace when building the app: the clock, mail worker and SMTP tunables. */
export type AppOptions = Omit<ServiceOptions, 'log'>;

/**
 * Builds the app and its services; closing the app stops the
 * mail request worker and the mail worker, then closes storage.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<BuiltApp> {
  // `auto` reads as pretty only when a person is watching the terminal.
  const logFormat = config.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : config.logFormat;
  const app = Fastify({
    logger: buildLoggerOptions(config.logLevel, logFormat),
    // Pretty logs write one line per request themselves (registerRequestLines below).
    ...(logFormat === 'pretty' && { logController: new LogController({ disableRequestLogging: true }) }),
    // The per-request child logger is made only when a request logs something (see logging.ts).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()) : false,
    return503OnClosing: false,
    // Router and HTTP-parser failures get the error envelope too.
    frameworkErrors: (error, request, reply) => {
      // These answers skip the onSend hooks: a page the project allows must still read them.
      void Promise.resolve(applyCors(request, reply, services.registry)).then(() =>
        sendError(reply, toAppError(error)),
      );
    },
    clientErrorHandler: handleClientError,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
  });
  // Services are built after the app so that they log through the app's (redacting) logger.
  // A server holds its SQLite data folder until it closes: one process per folder (docs/deploy.md).
  const services = await buildServices(config, { lockDataDirAs: 'rowbase serve', ...options, log: app.log });
  // Bodies are JSON only: drop Fastify's text/plain parser so anything else is a 415.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  // A callback hook, not async: no promise per answer on the hot path.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  // The mail worker runs only while the app does; it never sits on a request's path.
  app.addHook('onReady', async () => {
    services.mailWorker?.start();
    services.mailRequests.start();
    services.realtime.start();
    // The dummy hash is made now, so the first login with an unknown email takes no longer than the next ones.
    services.hasher.dummyHash().catch(() => undefined);
  });
  // Event streams never end by themselves: close them first, so clients reconnect elsewhere and the server can stop.
  app.addHook('preClose', async () => {
    services.realtime.close();
  });
  app.addHook('onClose', async () => {
    // Requests being resolved may still queue mail: let them finish before the mail worker stops.
    await services.mailRequests.stop();
    await services.mailWorker?.stop();
    await services.rateLimiter.close?.();
    await services.hasher.close();
    await services.storage.close();
  });

  if (logFormat === 'pretty') registerRequestLines(app);
  registerErrorHandling(app);
  registerCors(app, services.registry);
  registerDashboardTokenCheck(app, services.dashboardTokens);
  // Each route module declares the services it reads (its *RouteDeps interface, in http/): the
  // whole graph satisfies every one, and no route names the Services type of app/.
  registerHealthRoutes(app, services);
  registerPlatformProjectRoutes(app, services);
  registerDashboardSessionRoutes(app, { registry: services.registry, tokens: services.dashboardTokens });
  registerAdminTableRoutes(app, services);
  registerAdminEmailRoutes(app, services);
  registerAdminSettingsRoutes(app, services);
  registerAdminKeyRoutes(app, services);
  registerAdminOpenApiRoutes(app, services);
  registerApiDocsRoutes(app, services);
  registerAuthSessionRoutes(app, services);
  registerAuthPasswordRoutes(app, services);
  registerAuthVerificationRoutes(app, services);
  registerDataRowRoutes(app, services);
  registerRealtimeRoutes(app, services, services.realtime);
  await registerDashboardRoutes(app);
  app.server.on(
    'connect',
    buildConnectHandler((url) => noRouteError(app, 'CONNECT', url)),
  );
  return { app, services };
}
