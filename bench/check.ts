/**
 * `npm run bench -- --check`, the regression guard: judges each ratio target of a short run.
 * A ratio fails only when its median is below the target by more than the noise measured in
 * the same run (half the range of the back-to-back pair ratios, at least NOISE_FLOOR), so a
 * busy machine widens the tolerance instead of failing the check at random.
 */
import type { ScenarioResult } from './run-scenario.js';

/** The smallest tolerance: ratios of short runs move by a few per cent even on a quiet machine. */
export const NOISE_FLOOR = 0.03;

export interface CheckVerdict {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** Ratio targets of the scenarios that ran, each judged against its measured noise. */
export function judgeCheck(results: readonly ScenarioResult[]): CheckVerdict {
  const lines = ['', 'Regression check (ratio of req/s, Rowbase / baseline, median of back-to-back pairs):'];
  let ok = true;
  for (const result of results) {
    for (const target of result.ratioTargets) {
      if (!result.ratio) {
        lines.push(
          `  ${result.id.padEnd(18)} no ratio measured${result.skipped ? ` (skipped: ${result.skipped})` : ''}  FAIL`,
        );
        ok = false;
        continue;
      }
      const noise = Math.max(NOISE_FLOOR, (result.ratio.max - result.ratio.min) / 2);
      const pass = result.ratio.median >= target - noise;
      if (!pass) ok = false;
      const baselineCpu = result.series.find((series) => series.target === 'baseline')?.serverCpu.median;
      const efficiency = result.cpuRatio ? `, CPU efficiency ${result.cpuRatio.median.toFixed(2)}` : '';
      const baselineCore =
        baselineCpu === undefined ? '' : `, baseline server ${(baselineCpu * 100).toFixed(0)} % of its core`;
      const cpu = `${efficiency}${baselineCore}`;
      lines.push(
        `  ${result.id.padEnd(18)} ${result.ratio.median.toFixed(2)} × ` +
          `(${result.ratio.min.toFixed(2)}–${result.ratio.max.toFixed(2)}, ` +
          `noise ±${noise.toFixed(2)}${cpu}) target ≥ ${target}  ` +
          `${pass ? (result.ratio.median >= target ? 'ok' : 'ok within noise') : 'FAIL'}`,
      );
    }
  }
  return { ok, lines };
}
