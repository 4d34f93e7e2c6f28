/**
 * What one load run asks for and what it measured: the contract between the harness and
 * the load worker process (passed as JSON files, so it holds only plain data).
 */

/** One request a load cycles through. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON text, sent with Content-Type: application/json. */
  readonly body?: string;
}

/** A load: `connections` clients sending `requests` round robin for `durationSeconds`. */
export interface LoadSpec {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly requests: readonly LoadRequest[];
  /** Request timeout in seconds (a slow answer past it counts as an error). */
  readonly timeoutSeconds?: number;
  /** The load generator: wrk (default when installed) or autocannon. */
  readonly loader?: 'wrk' | 'autocannon';
  /** wrk threads (default 1). */
  readonly threads?: number;
  /** CPUs the load generator is pinned to (taskset -c list), when the harness pins. */
  readonly loadCpus?: string;
}

/** Latency percentiles in milliseconds, measured per request with sub-millisecond precision. */
export interface Latency {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** What one load run measured. */
export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly latency: Latency;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  /** Which load generator ran. */
  readonly loader?: 'wrk' | 'autocannon';
  /** The load generator's own CPU use over the run, in cores (wrk only): well under 1 means it had headroom. */
  readonly loaderCpu?: number;
  /** The first answer that was not 2xx, to say why a scenario failed. */
  readonly firstFailure?: { readonly status: number; readonly body: string };
}

/** Nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Summarises raw latencies (milliseconds). */
export function summariseLatency(values: Float64Array): Latency {
  const sorted = values.slice().sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : 0,
    mean: sorted.length > 0 ? sum / sorted.length : 0,
  };
}
