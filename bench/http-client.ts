/**
 * A tiny JSON client for setting up benchmarks (not for measuring: autocannon does that).
 */

/** A decoded answer. */
export interface ApiResponse {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/** Sends one request to `base`; a body is sent as JSON. Never throws on a non-2xx status. */
export async function call(
  base: string,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<ApiResponse> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: response.status, body: parsed };
}

/** Like `call`, but throws unless the status is `expected` (the error says what came back). */
export async function expectStatus(
  expected: number,
  base: string,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<ApiResponse> {
  const response = await call(base, method, route, headers, body);
  if (response.status !== expected) {
    const shown = JSON.stringify(response.body)?.slice(0, 400);
    throw new Error(`${method} ${route}: expected ${expected}, got ${response.status} ${shown}`);
  }
  return response;
}
