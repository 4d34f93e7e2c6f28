/**
 * Turns a run's results into Markdown and writes it into docs/benchmarks.md between two
 * markers, leaving the hand-written prose around them alone. The raw results go to
 * bench/results/last-run.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ColdStartResult } from './cold-start.js';
import type { FootprintResult } from './footprint.js';
import type { TwoProcessResult } from './postgres.js';
import type { MachineInfo } from './machine.js';
import type { RealtimeResult } from './realtime.js';
import type { ScenarioResult } from './run-scenario.js';
import { formatCount, formatMiB, formatMs, type SeriesSummary, type Spread } from './stats.js';

export const START_MARKER = '<!-- bench:results:start (written by npm run bench; edits here are overwritten) -->';
export const END_MARKER = '<!-- bench:results:end -->';

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  readonly startedAt: string;
  readonly wallSeconds: number;
  readonly command: string;
  readonly quick: boolean;
  readonly plan: {
    readonly runs: number;
    readonly durationSeconds: number;
    readonly warmupSeconds: number;
    readonly loader?: 'wrk' | 'autocannon';
    readonly pinning?: { readonly server: string; readonly load: string };
  };
  readonly machine: MachineInfo;
  readonly seeding: Readonly<Record<string, number>>;
  readonly scenarios: readonly ScenarioResult[];
  readonly footprint?: FootprintResult;
  readonly footprintSkipped?: string;
  readonly coldStart?: ColdStartResult;
  readonly twoProcesses?: TwoProcessResult;
  readonly realtime?: RealtimeResult;
}

function range(summary: SeriesSummary): string {
  return `${formatCount(summary.rps.median)} (${formatCount(summary.rps.min)}–${formatCount(summary.rps.max)})`;
}

function cores(value: Spread | undefined): string {
  return value ? `${value.median.toFixed(2)} (${value.min.toFixed(2)}–${value.max.toFixed(2)})` : '';
}

function scenarioRows(report: BenchReport): string[] {
  const rows = [
    '| Scenario | Server | Conn. | req/s median (min–max) | p50 ms | p99 ms | max ms | CPU ' +
      'µs/req | server CPU, cores (min–max) | load generator CPU | errors / non-2xx | peak RSS |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of report.scenarios) {
    if (scenario.skipped) {
      rows.push(`| ${scenario.title} | — | ${scenario.connections} | skipped: ${scenario.skipped} | | | | | | | | |`);
      continue;
    }
    for (const series of scenario.series) {
      const s = series.summary;
      rows.push(
        `| ${scenario.title} | ${series.label ? `rowbase, ${series.label}` : series.target} | ` +
          `${scenario.connections} | ${range(s)} | ${formatMs(s.p50.median)} | ` +
          `${formatMs(s.p99.median)} | ${formatMs(s.max)} | ${formatCount(series.cpuPerRequest.median)} ` +
          `| ${cores(series.serverCpu)} | ${series.loaderCpu ? cores(series.loaderCpu) : ''} | ` +
          `${s.errors} / ${s.non2xx} | ${formatMiB(series.peakRss)} |`,
      );
      if (series.background) {
        const b = series.background;
        rows.push(
          `| ↳ concurrent login burst | rowbase | 20 | ${range(b)} | ${formatMs(b.p50.median)} | ` +
            `${formatMs(b.p99.median)} | ${formatMs(b.max)} | | | | ${b.errors} / ${b.non2xx} | |`,
        );
      }
    }
  }
  return rows;
}

function ratioRows(report: BenchReport): string[] {
  const rows = [
    '| Scenario | Rowbase req/s | Baseline req/s | Rowbase / baseline req/s, ' +
      'median of pairs (range) | Rowbase / baseline CPU efficiency (range) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const scenario of report.scenarios) {
    if (!scenario.ratio) continue;
    const [rowbase, baseline] = scenario.series;
    rows.push(
      `| ${scenario.title} | ${formatCount(rowbase!.summary.rps.median)} | ` +
        `${formatCount(baseline!.summary.rps.median)} | **${scenario.ratio.median.toFixed(2)}** ` +
        `(${scenario.ratio.min.toFixed(2)}–${scenario.ratio.max.toFixed(2)}) | ` +
        (scenario.cpuRatio
          ? `${scenario.cpuRatio.median.toFixed(2)} ` +
            `(${scenario.cpuRatio.min.toFixed(2)}–${scenario.cpuRatio.max.toFixed(2)})`
          : '') +
        ' ' +
        '|',
    );
  }
  return rows;
}

function met(value: boolean | null): string {
  return value === null ? '—' : value ? 'yes' : '**no**';
}

function goalRows(report: BenchReport): string[] {
  const rows = ['| Scenario | Target | Measured (median of runs) | Met |', '|---|---|---|---|'];
  for (const scenario of report.scenarios) {
    for (const goal of scenario.goals)
      rows.push(`| ${scenario.title} | ${goal.text} | ${goal.measured} | ${met(goal.met)} |`);
  }
  // The proof that the load generator was not the limit: the baseline's server used its whole core.
  for (const scenario of report.scenarios) {
    const baseline = scenario.series.find((series) => series.target === 'baseline');
    // Writes wait for the disk (the baseline fsyncs in COMMIT): only reads can saturate a core.
    if (!baseline || scenario.connections < 10 || /create|bulk/.test(scenario.id)) continue;
    const loader = baseline.loaderCpu ? `; load generator ${baseline.loaderCpu.median.toFixed(2)} core` : '';
    rows.push(
      `| ${scenario.title} | baseline server ≥ 0.95 of its core (the load generator is not the limit) ` +
        `| ${cores(baseline.serverCpu)}${loader} | ${met(baseline.serverCpu.median >= 0.95)} |`,
    );
  }
  for (const goal of report.footprint?.goals ?? [])
    rows.push(`| footprint | ${goal.text} | ${goal.measured} | ${met(goal.met)} |`);
  const c = report.coldStart;
  if (c)
    rows.push(
      `| cold start (spawn → first answered GET by id, SQLite) | < ${c.target.maxMs} ms | ` +
        `${c.ms.median.toFixed(0)} ms (${c.ms.min.toFixed(0)}–${c.ms.max.toFixed(0)}, ` +
        `${c.starts} starts) | ${met(c.target.met)} |`,
    );
  for (const goal of report.realtime?.goals ?? [])
    rows.push(`| realtime | ${goal.text} | ${goal.measured} | ${met(goal.met)} |`);
  return rows;
}

function footprintLines(report: BenchReport): string[] {
  const f = report.footprint;
  if (!f) return [`Footprint: skipped (${report.footprintSkipped ?? 'not run'}).`];
  const latency = (l: FootprintResult['coldFirstRequest']) =>
    `p50 ${formatMs(l.p50)} ms, p99 ${formatMs(l.p99)} ms, max ${formatMs(l.max)} ms`;
  return [
    `${f.projects} projects × ${f.tablesPerProject} tables (created in ` +
      `${f.seedSeconds.toFixed(0)} s through the API, then a fresh server process):`,
    '',
    `- RSS idle, before touching any project: ${formatMiB(f.rssIdle)}`,
    `- RSS after touching every project once: **${formatMiB(f.rssAfterTouch)}** (peak ${formatMiB(f.peakRss)})`,
    `- first request to a cold project: **${latency(f.coldFirstRequest)}**`,
    `- the same request to an open project: ${latency(f.warmRequest)}`,
  ];
}

function realtimeLines(report: BenchReport): string[] {
  const r = report.realtime;
  if (!r) return ['Realtime: not run (select it with `--only realtime`, or run without `--only`).'];
  const lines = r.fanOut.map(
    (f) =>
      `- ${f.engine}, ${f.processes} process${f.processes > 1 ? 'es' : ''}, ${f.subscribers} ` +
      `subscribers (half owner-only), ${f.writes} writes: write-to-delivery p50 ` +
      `${formatMs(f.latency.p50)} ms, p99 **${formatMs(f.latency.p99)} ms**, max ` +
      `${formatMs(f.latency.max)} ms; ${f.deliveries} of ${f.expectedDeliveries} deliveries`,
  );
  const i = r.idle;
  lines.push(
    `- ${i.clients} idle subscribed clients: RSS ${formatMiB(i.rssBefore)} → ${formatMiB(i.rssAfter)}; ` +
      `GET by id ${i.rpsWithout.toFixed(0)} req/s without, ${i.rpsWith.toFixed(0)} req/s with them`,
  );
  return lines;
}

function twoProcessLines(report: BenchReport): string[] {
  const t = report.twoProcesses;
  if (!t) return [];
  const r = (v: Spread) => `${formatCount(v.median)} (${formatCount(v.min)}–${formatCount(v.max)})`;
  return [
    '### Two Rowbase processes on one PostgreSQL database',
    '',
    `GET by id, ${t.connectionsPerProcess} connections to each process (${t.pinned}):`,
    '',
    `- two processes: **${r(t.rps)} req/s** in all, worse p99 of the two ${formatMs(t.p99.median)} ms`,
    `- one process, same load, same conditions: ${r(t.oneProcessRps)} req/s`,
    '- PostgreSQL connections the two processes held (most seen): ' +
      `**${t.pgConnections}** (pool of 10 per process, plus one LISTEN connection each)`,
    '',
  ];
}

/** The generated section: machine, plan, figures, ratios, targets, seeding times. */
export function renderResults(report: BenchReport): string {
  const m = report.machine;
  const failures = report.scenarios.flatMap((s) => s.failures);
  const seeding = Object.entries(report.seeding)
    .map(([step, seconds]) => `${step} ${seconds.toFixed(1)} s`)
    .join('; ');
  return [
    START_MARKER,
    '',
    `Run of ${report.startedAt}${report.quick ? ' — **smoke run (`--quick`): too short to be representative**' : ''}.`,
    '',
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory}; ${m.os}; ` +
      `load average ${m.loadAtStart.toFixed(2)} at the start`,
    `- Software: Node ${m.node}, SQLite ${m.sqlite}; commit ${m.commit}`,
    `- Command: \`${report.command}\` (${report.wallSeconds.toFixed(0)} s wall time in all)`,
    `- Load: ${report.plan.loader ?? 'autocannon'}` +
      (report.plan.pinning
        ? `, servers pinned to CPU ${report.plan.pinning.server} ` +
          `and the load generator to CPU ${report.plan.pinning.load} (taskset)`
        : ', not pinned'),
    `- Plan: per scenario and server a ${report.plan.warmupSeconds} s warm-up, then ` +
      `${report.plan.runs} run${report.plan.runs === 1 ? '' : 's'} of ${report.plan.durationSeconds} ` +
      's, Rowbase and baseline alternating; figures are medians over runs with the range in brackets',
    `- Seeding through the API (not measured): ${seeding}`,
    failures.length > 0
      ? `- **FAILURES** (errors or non-2xx answers):\n${failures.map((f) => `  - ${f}`).join('\n')}`
      : '- Errors and non-2xx answers: none',
    '',
    '### Targets',
    '',
    ...goalRows(report),
    '',
    '### Rowbase / baseline',
    '',
    ...ratioRows(report),
    '',
    '### All figures',
    '',
    ...scenarioRows(report),
    '',
    ...twoProcessLines(report),
    '### Footprint',
    '',
    ...footprintLines(report),
    '',
    '### Realtime',
    '',
    ...realtimeLines(report),
    '',
    END_MARKER,
  ].join('\n');
}

/** Writes the JSON results, and (when `docsFile` is given) the section of the docs page. */
export function writeReport(report: BenchReport, resultsFile: string, docsFile: string | undefined): void {
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  if (!docsFile) return;
  const section = renderResults(report);
  const current = existsSync(docsFile) ? readFileSync(docsFile, 'utf8') : '# Benchmarks\n\n## Latest results\n\n';
  const start = current.indexOf(START_MARKER.slice(0, 25));
  const end = current.indexOf(END_MARKER);
  const next =
    start !== -1 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END_MARKER.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(docsFile, next);
}
