/**
 * Logger options: request lines with ids, and never a secret. Headers are not logged at all;
 * query strings are logged with token-like parameters masked (verify links carry tokens).
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';

const SECRET_NAME = /token|key|password|secret/i;

/**
 * Masks the values of query parameters named like secrets. Names are percent-decoded first,
 * because the server decodes them too (`?%74oken=` is `token`).
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return equals >= 0 && SECRET_NAME.test(safeDecode(name)) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * pino options for Fastify's logger. `pretty` writes one readable line per entry through
 * pino-pretty (in pino's transport thread, so formatting stays off the event loop); `json`
 * writes pino's own lines, for log collectors. Redaction applies before either.
 */
export function buildLoggerOptions(level: string, format: 'pretty' | 'json' = 'json') {
  return {
    level,
    ...(format === 'pretty' ? { transport: PRETTY_TRANSPORT } : {}),
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
    // Belt and braces: should anything ever log these paths, pino writes [Redacted].
    redact: [
      'req.headers.authorization',
      'req.headers["x-admin-key"]',
      'req.headers["x-api-key"]',
      'req.headers["x-platform-key"]',
      'req.headers["x-dashboard-token"]',
      'password',
      'token',
      'refresh_token',
    ],
  };
}

/**
 * Readable lines for a person at a terminal: time, level, message, and the request's id.
 * `sync`: pino-pretty flushes its async writer at exit only on the main thread, and it runs in
 * pino's transport thread, so the last lines before a stop (the request just answered,
 * "shutting down") could be lost. Synchronous writes there block that thread, never the
 * event loop.
 */
const PRETTY_TRANSPORT = {
  target: 'pino-pretty',
  options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true },
};

/**
 * For the pretty format: one line per answered request ("GET /p/demo/api/tasks → 200 in 1.2 ms")
 * instead of Fastify's two JSON entries (incoming, completed). The URL is redacted as in JSON.
 * Call with Fastify's own request logging disabled.
 */
export function registerRequestLines(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    app.log.info(
      `${request.method} ${redactUrl(request.url)} → ${reply.statusCode} in ${reply.elapsedTime.toFixed(1)} ms`,
    );
    done();
  });
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * Fastify's `childLoggerFactory`: a request's logger that makes its pino child (which binds the
 * request id, serialising it) only when a line is actually written. Fastify makes a child per
 * request otherwise, work thrown away at LOG_LEVEL=warn on nearly every request. Levels below
 * the configured one stay the parent's no-ops; the others, and `child()`, go through the child.
 */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = function lazyChildLogger(
  logger,
  bindings,
  options,
) {
  let child: FastifyBaseLogger | undefined;
  const made = (): FastifyBaseLogger => (child ??= logger.child(bindings, options));
  const lazy = Object.create(logger) as FastifyBaseLogger & Record<string, unknown>;
  const enabled = (logger as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  for (const level of LEVELS) {
    if (enabled ? enabled.call(logger, level) : true)
      lazy[level] = (...args: unknown[]) => (made()[level] as (...a: unknown[]) => void)(...args);
  }
  lazy.child = ((childBindings, childOptions) =>
    made().child(childBindings, childOptions)) as FastifyBaseLogger['child'];
  return lazy;
};
