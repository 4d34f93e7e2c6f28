/**
 * Medians and spreads over several runs, and the Rowbase/baseline ratio of runs made back
 * to back. A shared, noisy machine makes one run meaningless; these summaries are what the
 * report shows.
 */
import type { LoadResult } from './load-spec.js';

/** A median with the range it came from. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and range of values; zeros for none. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: 0, min: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Several runs of one scenario against one server, summarised. */
export interface SeriesSummary {
  readonly runs: number;
  readonly rps: Spread;
  readonly p50: Spread;
  readonly p99: Spread;
  /** The largest latency seen in any run. */
  readonly max: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** Summarises runs: medians and ranges of req/s, p50 and p99; worst max; summed failures. */
export function summariseRuns(runs: readonly LoadResult[]): SeriesSummary {
  return {
    runs: runs.length,
    rps: spread(runs.map((r) => r.rps)),
    p50: spread(runs.map((r) => r.latency.p50)),
    p99: spread(runs.map((r) => r.latency.p99)),
    max: Math.max(0, ...runs.map((r) => r.latency.max)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** numerator[i] / denominator[i] for each pair of back-to-back runs, summarised. */
export function pairedRatio(numerators: readonly number[], denominators: readonly number[]): Spread {
  const pairs = Math.min(numerators.length, denominators.length);
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    if (denominators[i]! > 0) ratios.push(numerators[i]! / denominators[i]!);
  }
  return spread(ratios);
}

/** "1,234" */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Milliseconds with a sensible number of digits. */
export function formatMs(value: number): string {
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** Bytes as MiB. */
export function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}
