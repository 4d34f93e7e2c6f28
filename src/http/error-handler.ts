/**
 * The one place errors become HTTP: every non-2xx answer is the envelope
 * `{ error: { code, message, suggestion } }`. Raw causes are logged, never sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { StoreError } from '../store/types.js';
import { noRouteError } from './allowed-methods.js';
import { withRequestPaths } from './suggestion-paths.js';

/** The envelope body for an AppError. */
export function errorBody(error: AppError): {
  error: { code: string; message: string; suggestion: string; field?: string };
} {
  const body = { code: error.code, message: error.message, suggestion: error.suggestion };
  return { error: error.field === undefined ? body : { ...body, field: error.field } };
}

/** Sends an AppError as the envelope with its status and headers. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send(errorBody(error));
}

/**
 * Maps framework and storage errors onto catalogue codes: a framework error that is the
 * client's (a 4xx `statusCode`) gets a 4xx code; anything else unknown is INTERNAL_ERROR.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof StoreError && (error.kind === 'busy' || error.kind === 'unavailable'))
    return storageFault(error);
  if (error instanceof StoreError && error.kind === 'check') {
    // A value the storage refused that no validator caught (e.g. U+0000 in a name): the caller's input, not a fault.
    return new AppError('VALIDATION_FAILED', {
      message: 'A value in the request cannot be stored.',
      suggestion: 'Check the values you sent; text cannot contain the NUL character (U+0000).',
      cause: error,
    });
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE':
      // QUERY (RFC 10008) must say what its body is.
      return new AppError('UNSUPPORTED_MEDIA_TYPE', {
        message: 'This request has no Content-Type header, which its method requires.',
        suggestion: 'Send Content-Type: application/json with a JSON body.',
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_JSON', {
        message: 'The body is empty but Content-Type says JSON.',
        suggestion: 'Send a JSON body, or leave out the Content-Type header.',
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('INVALID_JSON');
    case 'FST_ERR_BAD_URL':
      return new AppError('BAD_REQUEST', {
        message: 'The URL is not valid percent-encoding.',
        suggestion: 'Percent-encode path segments and query values (encodeURIComponent).',
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Every id and name is far shorter than the router's limit: nothing can exist there.
      return new AppError('NOT_FOUND', {
        message: 'A path segment is longer than any project id, table name or row id can be.',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_JSON', { message: 'Content-Length does not match the body.' });
    case 'FST_ERR_NOT_FOUND':
      return new AppError('NOT_FOUND');
    default:
      break;
  }
  if (
    error instanceof SyntaxError ||
    (fastifyError.statusCode === 400 && /JSON|__proto__|constructor/i.test(fastifyError.message ?? ''))
  ) {
    return new AppError('INVALID_JSON');
  }
  // Any other error the framework (or a body stream) marks as the client's: its 4xx, never a 500.
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return clientFault(status, error);
  return new AppError('INTERNAL_ERROR', { cause: error });
}

/** The catalogue code for a framework's client error of `status`; BAD_REQUEST for the statuses we have no code for. */
const CLIENT_FAULTS: Readonly<Record<number, ErrorCode>> = {
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'HEADERS_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
};

/** A client error the framework raised that the switch above does not name: its cause is logged, never sent. */
function clientFault(status: number, error: unknown): AppError {
  return new AppError(CLIENT_FAULTS[status] ?? 'BAD_REQUEST', { cause: error });
}

/**
 * Seconds a client should wait after a storage fault: a restart or failover takes a few seconds, a busy moment less.
 */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;
const RETRY_AFTER_BUSY_SECONDS = 1;

/**
 * 503 SERVICE_UNAVAILABLE with Retry-After for storage that is down or too slow. The message
 * is ours: the driver's text (host names, SQL) is only logged, with the rest of the cause.
 */
function storageFault(error: StoreError): AppError {
  if (error.kind === 'unavailable') {
    return new AppError('SERVICE_UNAVAILABLE', {
      message: 'The database cannot be reached (it is down, restarting, or the server is shutting down).',
      suggestion:
        `Retry after the Retry-After header's ${RETRY_AFTER_UNAVAILABLE_SECONDS} ` +
        'seconds; GET /health answers 200 again once the database is back.',
      headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
      cause: error,
    });
  }
  return new AppError('SERVICE_UNAVAILABLE', {
    message:
      'The database is busy: it held a lock, had no free connection in time, or a statement ran past its time limit.',
    suggestion:
      `Retry after the Retry-After header's ${RETRY_AFTER_BUSY_SECONDS} second; ` +
      'if it keeps happening, ask for less at once (a smaller limit, a simpler filter).',
    headers: { 'retry-after': String(RETRY_AFTER_BUSY_SECONDS) },
    cause: error,
  });
}

/**
 * Installs the error and not-found handlers: 404 NOT_FOUND, or
 * 405 METHOD_NOT_ALLOWED for a path that has other methods.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, noRouteError(app, request.method, request.url));
  });
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else if (request.is404) {
      // Fastify reads the body (content type, size, JSON) before the not-found handler runs:
      // with no route to take it, what the body was is beside the point; the path is not.
      sendError(reply, noRouteError(app, request.method, request.url));
      return;
    }
    sendError(reply, withRequestPaths(appError, request.params));
  });
}
