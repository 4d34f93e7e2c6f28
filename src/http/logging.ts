/**
 * Logger options: request lines with ids, and never a secret. Headers are not logged at all;
 * query strings are logged with token-like parameters masked (verify links carry tokens).
 */
import type { FastifyRequest } from 'fastify';

const SECRET_PARAMS = /([?&][^=&]*(?:token|key|password|secret)[^=&]*=)[^&]*/gi;

/** Masks secret query parameters of a URL for logging. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/** pino options for Fastify's logger. */
export function buildLoggerOptions(level: string) {
  return {
    level,
    serializers: {
      req: (request: FastifyRequest) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
    },
    // Belt and braces: should anything ever log these paths, pino writes [Redacted].
    redact: ['req.headers.authorization', 'req.headers["x-admin-key"]', 'req.headers["x-api-key"]', 'req.headers["x-platform-key"]', 'password', 'token', 'refresh_token'],
  };
}
