/**
 * The load generator process: reads a LoadSpec (JSON file named by argv[2]), drives the
 * server with autocannon over loopback, and prints one LoadResult as JSON on stdout.
 * It runs in its own process so that the client never shares an event loop with the
 * server, the harness, or a second load running at the same time.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { summariseLatency, type LoadRequest, type LoadResult, type LoadSpec } from './load-spec.js';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}

interface AutocannonInstance extends PromiseLike<{ errors: number; timeouts: number; non2xx: number }> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}

type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function toAutocannon(request: LoadRequest): AutocannonRequest {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: request.method,
    path: request.path,
    headers,
    ...(request.body !== undefined && { body: request.body }),
  };
}

/** Runs one load and resolves with what it measured. */
export async function runLoadInProcess(spec: LoadSpec): Promise<LoadResult> {
  let firstFailure: LoadResult['firstFailure'];
  const onResponse = (status: number, body: string) => {
    if ((status < 200 || status > 299) && !firstFailure) firstFailure = { status, body: String(body).slice(0, 500) };
  };
  const prepared = spec.requests.map(toAutocannon);
  let requests: AutocannonRequest[];
  if (prepared.length === 1) {
    // One fixed request: autocannon builds its bytes once.
    requests = [{ ...prepared[0]!, onResponse }];
  } else {
    // Many requests: one shared cursor, so the connections spread over them instead of each walking the same order.
    let cursor = 0;
    requests = [{ setupRequest: (request) => ({ ...request, ...prepared[cursor++ % prepared.length]! }), onResponse }];
  }

  let latencies = new Float64Array(65_536);
  let count = 0;
  let first = 0n;
  let last = 0n;
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: spec.timeoutSeconds ?? 10,
    requests,
  });
  // autocannon's own histogram has 1 ms resolution; the targets need finer, so every latency is kept.
  instance.on('response', (_client, _status, _bytes, ms) => {
    last = process.hrtime.bigint();
    if (count === 0) first = last - BigInt(Math.round(ms * 1e6));
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = ms;
  });
  const result = await instance;
  // Rate over the span from the first request sent to the last answer, not autocannon's sampling window.
  const seconds = Number(last - first) / 1e9;
  return {
    requests: count,
    seconds,
    rps: seconds > 0 ? count / seconds : 0,
    latency: summariseLatency(latencies.subarray(0, count)),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...(firstFailure && { firstFailure }),
  };
}

const specFile = process.argv[2];
if (specFile) {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as LoadSpec;
  const result = await runLoadInProcess(spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
