/**
 * The request core under every call of the SDK and of the dashboard: one JSON request, its
 * answer decoded, and every failure (the server's error envelope, no answer, an answer that is
 * not Rowbase's) turned into a RowbaseError. It knows no credentials: callers pass their own
 * headers (the SDK its API key and bearer token, the dashboard its X-Dashboard-Token).
 */
import { RowbaseError } from './errors.js';

/** One JSON request. */
export interface JsonRequest {
  readonly method: string;
  /** The full URL (or, in a page, a path on the page's origin). */
  readonly url: string;
  /** Names the server in error messages and suggestions, e.g. its base URL. */
  readonly server: string;
  /** Headers added to Accept (and Content-Type when there is a body): credentials, If-Match, ... */
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body; undefined sends none. */
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Other fetch options, e.g. `cache: 'no-store'` and `credentials: 'omit'` in a page. */
  readonly init?: Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal'>;
}

/** A successful answer: the decoded body (undefined for 204 or an empty body) and the headers (ETag, ...). */
export interface JsonAnswer<T> {
  readonly body: T;
  readonly status: number;
  readonly headers: Headers;
}

/**
 * Sends `request` and returns its decoded answer. Throws RowbaseError: the server's code for
 * an error envelope, or NETWORK_ERROR, ABORTED, INVALID_RESPONSE, INVALID_BODY.
 */
export async function sendJson<T>(request: JsonRequest): Promise<JsonAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const body = request.body === undefined ? null : encodeBody(request.body);
  // Called unbound: browsers refuse a fetch called as a method of another object ("Illegal invocation").
  const send = request.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  let response: Response;
  try {
    response = await send(request.url, {
      ...request.init,
      method: request.method,
      headers,
      body,
      signal: request.signal ?? null,
    });
  } catch (cause) {
    throw transportError(cause, request.signal, request.server);
  }
  return {
    body: await readAnswer<T>(response, request.signal, request.server),
    status: response.status,
    headers: response.headers,
  };
}

async function readAnswer<T>(response: Response, signal: AbortSignal | undefined, server: string): Promise<T> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw transportError(cause, signal, server);
  }
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const context = {
    status: response.status,
    retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined,
    requestId: response.headers.get('x-request-id') ?? undefined,
  };
  if (response.status === 204 || (response.ok && text === '')) return undefined as T;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new RowbaseError({
      ...context,
      code: 'INVALID_RESPONSE',
      message: `The server answered ${response.status} with a body that is not JSON.`,
      suggestion: `Check that ${server} is a Rowbase server and that no proxy rewrites its answers.`,
      cause,
    });
  }
  if (response.ok) return body as T;
  const envelope = (
    body as { error?: { code?: unknown; message?: unknown; suggestion?: unknown; field?: unknown } } | null
  )?.error;
  if (!envelope || typeof envelope.code !== 'string') {
    throw new RowbaseError({
      ...context,
      code: 'INVALID_RESPONSE',
      message: `The server answered ${response.status} without an error envelope.`,
      suggestion: `Check that ${server} is a Rowbase server.`,
      cause: body,
    });
  }
  throw new RowbaseError({
    ...context,
    code: envelope.code,
    message: typeof envelope.message === 'string' ? envelope.message : envelope.code,
    suggestion: typeof envelope.suggestion === 'string' ? envelope.suggestion : '',
    field: typeof envelope.field === 'string' ? envelope.field : undefined,
  });
}

/** The body as JSON; a value JSON cannot hold (a BigInt, a cycle) is refused before anything is sent. */
function encodeBody(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    throw new RowbaseError({
      status: 0,
      code: 'INVALID_BODY',
      message: `The request body cannot be sent as JSON: ${cause instanceof Error ? cause.message : String(cause)}`,
      suggestion:
        'Send plain JSON values: strings, numbers, booleans, null, arrays and objects (no BigInt, no cycles).',
      cause,
    });
  }
}

/** The error for a request that got no answer: aborted by its signal, or a network failure. */
function transportError(cause: unknown, signal: AbortSignal | undefined, server: string): RowbaseError {
  if (signal?.aborted) {
    return new RowbaseError({
      status: 0,
      code: 'ABORTED',
      message: 'The request was aborted.',
      suggestion: 'Nothing to do if the abort was intended; otherwise retry.',
      cause: signal.reason ?? cause,
    });
  }
  return new RowbaseError({
    status: 0,
    code: 'NETWORK_ERROR',
    message: `No answer from ${server}: ${cause instanceof Error ? cause.message : String(cause)}`,
    suggestion:
      `Check that the server at ${server} is running and reachable; in a ` +
      `browser, also check that this page's origin is in the project's ` +
      'cors_origins setting (the browser hides a CORS refusal as a network error).',
    cause,
  });
}
