/**
 * Answers for requests that never reach a route: malformed HTTP, oversized headers, slow
 * clients (Node's `clientError`). They get the same error envelope as every other failure.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
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
 * Writes `error` as a whole HTTP answer to a socket that has no request object: the envelope,
 * or only the headers for a HEAD request (`headOnly`: a client reads no body after them and would take
 * the body for a malformed next answer). Then the connection closes.
 */
function writeRawError(socket: Socket, error: AppError, { headOnly }: { readonly headOnly: boolean }): void {
  if (!socket.writable) return;
  const body = JSON.stringify(errorBody(error));
  const extra = Object.entries(error.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n${extra}` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ` +
      `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${headOnly ? '' : body}`,
  );
}

/**
 * Fastify's `clientErrorHandler`: writes the envelope straight to the socket (there is no
 * request object yet) and closes the connection. Never throws.
 */
export function handleClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The bytes the parser failed on start with the request line when the request is small (the
  // usual case: a HEAD sent with a body); a longer one may get a body it does not expect.
  const isHead = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  writeRawError(socket, clientErrorOf(error), { headOnly: isHead });
  socket.destroy(error);
}

/**
 * The server's `connect` listener. Node hands CONNECT requests (a proxy tunnel) to it instead of
 * the router, and without one drops the connection unanswered. Rowbase is no proxy: the answer
 * is the router's for any other method it does not take (405 with Allow on a path that exists,
 * else 404 NOT_FOUND), then the connection closes.
 */
export function buildConnectHandler(
  answerFor: (url: string) => AppError,
): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    socket.on('error', () => socket.destroy());
    writeRawError(socket as Socket, answerFor(request.url ?? '/'), { headOnly: false });
    socket.end();
  };
}
