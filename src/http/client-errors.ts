/**
 * Answers for requests that never reach a route: malformed HTTP, oversized headers, slow
 * clients (Node's `clientError`). They get the same error envelope as every other failure.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../errors/app-error.js';
import { errorBody } from './error-handler.js';

/** The catalogue error for a Node HTTP parser failure. */
export function clientErrorOf(error: { code?: string }): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT');
    default:
      return new AppError('BAD_REQUEST');
  }
}

/**
 * Fastify's `clientErrorHandler`: writes the envelope straight to the socket (there is no
 * request object yet) and closes the connection. Never throws.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientErrorOf(error);
  const body = JSON.stringify(errorBody(appError));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
