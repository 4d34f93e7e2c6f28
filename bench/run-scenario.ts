/**
 * Runs one scenario: a warm-up per server, then several measured runs alternating between
 * Rowbase and the baseline (back to back, so both see the same machine noise), sampling
 * the server's memory during each run. Judges the result against the scenario's goals.
 */
import { runLoad } from './load.js';
import type { LoadResult, LoadSpec } from './load-spec.js';
import type { Goal, Scenario, ScenarioContext, Target } from './scenarios.js';
import type { ServerProcess } from './server-process.js';
import { formatCount, formatMs, pairedRatio, spread, summariseRuns, type SeriesSummary, type Spread } from './stats.js';

export interface RunPlan {
  readonly runs: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly scratchDir: string;
  readonly log: (line: string) => void;
  readonly loader: 'wrk' | 'autocannon';
  /** CPUs of the load generator (taskset -c), when pinned. */
  readonly loadCpus?: string;
}

/** Whose runs a series holds: a server, or the scenario's reference load on Rowbase. */
export type SeriesTarget = Target | 'reference';

/** One scenario's runs against one server (or of its reference load). */
export interface SeriesResult {
  readonly target: SeriesTarget;
  /** The reference load's name ("without expand", "page 1"), for target "reference". */
  readonly label?: string;
  readonly runs: readonly LoadResult[];
  readonly summary: SeriesSummary;
  /** Highest VmRSS sampled during the measured runs. */
  readonly peakRss: number;
  /**
   * Server CPU time (user + system, all threads) per answered request, in microseconds.
   * Unlike req/s it hardly moves when other work shares the machine.
   */
  readonly cpuPerRequest: Spread;
  /**
   * The server's CPU use during the measured runs, in cores (CPU seconds / wall seconds). A
   * server pinned to one core at ≥ 0.95 is the limit; well below means something else was.
   */
  readonly serverCpu: Spread;
  /** The load generator's CPU use, in cores (wrk only). */
  readonly loaderCpu?: Spread;
  /** The background load's runs (mixed scenario), summarised. */
  readonly background?: SeriesSummary;
}

export interface GoalResult {
  readonly text: string;
  readonly measured: string;
  /** null: not measured (the scenario was skipped). */
  readonly met: boolean | null;
}

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly connections: number;
  /** The scenario's ratio targets (Rowbase / baseline req/s at least this). */
  readonly ratioTargets: readonly number[];
  /** Why the scenario did not run, if it did not. */
  readonly skipped?: string;
  readonly series: readonly SeriesResult[];
  readonly ratio?: Spread;
  /**
   * Baseline CPU per request / Rowbase CPU per request, per pair
   * of runs: efficiency, less sensitive to noise than req/s.
   */
  readonly cpuRatio?: Spread;
  readonly goals: readonly GoalResult[];
  /** Runs with errors or non-2xx answers: the scenario failed. */
  readonly failures: readonly string[];
}

const BACKGROUND_LEAD_SECONDS = 1;

const percent = (cores: number) => `${(cores * 100).toFixed(0)} %`;

function describe(result: LoadResult): string {
  return (
    `${formatCount(result.rps)} req/s, p50 ${formatMs(result.latency.p50)} ms, ` +
    `p99 ${formatMs(result.latency.p99)} ms, max ${formatMs(result.latency.max)} ms`
  );
}

function failureOf(label: string, result: LoadResult): string | undefined {
  if (result.errors === 0 && result.non2xx === 0) return undefined;
  const first = result.firstFailure ? ` first: ${result.firstFailure.status} ${result.firstFailure.body}` : '';
  return `${label}: ${result.errors} errors, ${result.non2xx} non-2xx of ${result.requests} requests.${first}`;
}

function goalText(goal: Goal, reference = 'reference'): string {
  switch (goal.kind) {
    case 'ratio':
      return `req/s ≥ ${goal.min} × baseline`;
    case 'latency':
      return `${goal.stat} < ${goal.maxMs} ms`;
    case 'reference-rps':
      return `req/s ≥ ${goal.min} × ${reference} (same server, alternating runs)`;
    case 'reference-latency':
      return `${goal.stat} ≤ ${goal.maxRatio} × ${reference}'s (same server, alternating runs)`;
  }
}

const ratioText = (r: Spread) => `${r.median.toFixed(2)} × (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;

/** The measured load against its reference, run by run (req/s or a latency percentile). */
function judgeReference(
  goal: Goal & { kind: 'reference-rps' | 'reference-latency' },
  label: string,
  measured: readonly LoadResult[],
  reference: readonly LoadResult[] | undefined,
  note: string,
): GoalResult {
  const text = goalText(goal, label);
  if (!reference) return { text, measured: 'no reference run', met: false };
  if (goal.kind === 'reference-rps') {
    const r = pairedRatio(
      measured.map((m) => m.rps),
      reference.map((m) => m.rps),
    );
    return {
      text,
      measured:
        `${ratioText(r)}; ${formatCount(spread(measured.map((m) => m.rps)).median)} ` +
        `vs ${formatCount(spread(reference.map((m) => m.rps)).median)} req/s${note}`,
      met: r.median >= goal.min,
    };
  }
  const r = pairedRatio(
    measured.map((m) => m.latency[goal.stat]),
    reference.map((m) => m.latency[goal.stat]),
  );
  return {
    text,
    measured:
      `${ratioText(r)}; ${formatMs(spread(measured.map((m) => m.latency[goal.stat])).median)} ` +
      `vs ${formatMs(spread(reference.map((m) => m.latency[goal.stat])).median)} ms${note}`,
    met: r.median <= goal.maxRatio,
  };
}

function judge(
  goal: Goal & { kind: 'ratio' | 'latency' },
  rowbase: SeriesSummary,
  ratio: Spread | undefined,
): GoalResult {
  if (goal.kind === 'ratio') {
    if (!ratio) return { text: goalText(goal), measured: 'no baseline run', met: false };
    return { text: goalText(goal), measured: ratioText(ratio), met: ratio.median >= goal.min };
  }
  const value = rowbase[goal.stat].median;
  return { text: goalText(goal), measured: `${formatMs(value)} ms`, met: value < goal.maxMs };
}

/** Runs `scenario` against the servers it applies to. Never throws for a failing load: it reports it. */
export async function runScenario(
  scenario: Scenario,
  given: ScenarioContext,
  servers: Readonly<Record<Target, ServerProcess | undefined>>,
  plan: RunPlan,
): Promise<ScenarioResult> {
  const base = {
    id: scenario.id,
    title: scenario.title,
    connections: scenario.connections,
    ratioTargets: scenario.goals.flatMap((g) => (g.kind === 'ratio' ? [g.min] : [])),
  };
  if (scenario.needsAuth && !given.sessions) {
    const skipped = 'this build has no POST /p/{id}/auth/login yet';
    return {
      ...base,
      skipped,
      series: [],
      goals: scenario.goals.map((goal) => ({
        text: goalText(goal, scenario.reference?.label),
        measured: 'skipped',
        met: null,
      })),
      failures: [],
    };
  }
  let context = given;
  if (scenario.prepare) {
    try {
      context = await scenario.prepare(given, servers.rowbase!.url);
    } catch (error) {
      const failure = `${scenario.id} set-up: ${(error as Error).message}`;
      plan.log(`  ** ${failure}`);
      return {
        ...base,
        skipped: 'its set-up failed',
        series: [],
        goals: scenario.goals.map((goal) => ({
          text: goalText(goal, scenario.reference?.label),
          measured: 'set-up failed',
          met: false,
        })),
        failures: [failure],
      };
    }
  }
  // A reference load runs on Rowbase too, alternating with the measured one like a baseline would.
  const targets: SeriesTarget[] = scenario.reference
    ? ['rowbase', 'reference']
    : scenario.baseline && servers.baseline
      ? ['rowbase', 'baseline']
      : ['rowbase'];
  const serverOf = (target: SeriesTarget) => servers[target === 'reference' ? 'rowbase' : target]!;
  const labelOf = (target: SeriesTarget) => (target === 'reference' ? scenario.reference!.label : target);
  const specs = new Map<SeriesTarget, LoadSpec>();
  for (const target of targets) {
    const requests =
      target === 'reference' ? scenario.reference!.requests(context) : scenario.requests(context, target);
    specs.set(target, {
      url: serverOf(target).url,
      connections: scenario.connections,
      durationSeconds: plan.durationSeconds,
      requests,
      loader: plan.loader,
      ...(plan.loadCpus && { loadCpus: plan.loadCpus }),
    });
  }
  const background: LoadSpec | undefined = scenario.background && {
    url: servers.rowbase!.url,
    connections: scenario.background.connections,
    durationSeconds: plan.durationSeconds + 2 * BACKGROUND_LEAD_SECONDS,
    requests: scenario.background.requests(context),
    timeoutSeconds: 30,
    loader: plan.loader,
    ...(plan.loadCpus && { loadCpus: plan.loadCpus }),
  };

  const failures: string[] = [];
  const runs = new Map<SeriesTarget, LoadResult[]>(targets.map((t) => [t, []]));
  const backgroundRuns: LoadResult[] = [];
  const peaks = new Map<SeriesTarget, number>(targets.map((t) => [t, 0]));
  const cpu = new Map<SeriesTarget, number[]>(targets.map((t) => [t, []]));
  const serverCpu = new Map<SeriesTarget, number[]>(targets.map((t) => [t, []]));

  const beforeRun = async (target: SeriesTarget): Promise<void> => {
    await scenario.beforeRun?.(target, context, servers.rowbase!.url);
  };
  if (plan.warmupSeconds > 0) {
    for (const target of targets) {
      await beforeRun(target);
      const warm = await runLoad({ ...specs.get(target)!, durationSeconds: plan.warmupSeconds }, plan.scratchDir);
      const failure = failureOf(`${scenario.id} ${labelOf(target)} warm-up`, warm);
      if (failure) failures.push(failure);
    }
  }
  for (let run = 1; run <= plan.runs; run++) {
    for (const target of targets) {
      await beforeRun(target);
      const stopSampling = serverOf(target).sampleRss();
      let backgroundDone: Promise<LoadResult> | undefined;
      if (background) {
        backgroundDone = runLoad(background, plan.scratchDir);
        // Let the burst reach full speed before measuring.
        await new Promise((resolve) => setTimeout(resolve, BACKGROUND_LEAD_SECONDS * 1000 + 400));
      }
      const cpuBefore = serverOf(target).cpuSeconds();
      const result = await runLoad(specs.get(target)!, plan.scratchDir);
      const cpuAfter = serverOf(target).cpuSeconds();
      if (backgroundDone) {
        const burst = await backgroundDone;
        backgroundRuns.push(burst);
        const failure = failureOf(`${scenario.id} background ${scenario.background!.title} run ${run}`, burst);
        if (failure) failures.push(failure);
      }
      peaks.set(target, Math.max(peaks.get(target)!, stopSampling()));
      runs.get(target)!.push(result);
      cpu.get(target)!.push(result.requests > 0 ? ((cpuAfter - cpuBefore) / result.requests) * 1e6 : 0);
      serverCpu.get(target)!.push(result.seconds > 0 ? (cpuAfter - cpuBefore) / result.seconds : 0);
      const failure = failureOf(`${scenario.id} ${labelOf(target)} run ${run}`, result);
      if (failure) failures.push(failure);
      plan.log(
        `  ${scenario.id.padEnd(16)} ${labelOf(target).padEnd(8)} run ${run}/${plan.runs}: ` +
          `${describe(result)}, ${formatCount(cpu.get(target)!.at(-1)!)} µs CPU/req, server ` +
          `${percent(serverCpu.get(target)!.at(-1)!)} of a core` +
          (result.loaderCpu !== undefined ? `, ${result.loader} ${percent(result.loaderCpu)}` : '') +
          (failure ? '  ** FAILED **' : ''),
      );
    }
  }

  const series: SeriesResult[] = targets.map((target) => ({
    target,
    ...(target === 'reference' && { label: scenario.reference!.label }),
    runs: runs.get(target)!,
    summary: summariseRuns(runs.get(target)!),
    peakRss: peaks.get(target)!,
    cpuPerRequest: spread(cpu.get(target)!),
    serverCpu: spread(serverCpu.get(target)!),
    ...(runs.get(target)!.every((r) => r.loaderCpu !== undefined) && {
      loaderCpu: spread(runs.get(target)!.map((r) => r.loaderCpu!)),
    }),
    ...(target === 'rowbase' && backgroundRuns.length > 0 && { background: summariseRuns(backgroundRuns) }),
  }));
  const paired = targets.includes('baseline');
  const ratio = paired
    ? pairedRatio(
        runs.get('rowbase')!.map((r) => r.rps),
        runs.get('baseline')!.map((r) => r.rps),
      )
    : undefined;
  const cpuRatio = paired ? pairedRatio(cpu.get('baseline')!, cpu.get('rowbase')!) : undefined;
  const note =
    context.deepCursor && scenario.prepare ? ` (page ${context.deepCursor.page.toLocaleString('en-US')})` : '';
  const goals = scenario.goals.map((goal) =>
    goal.kind === 'reference-rps' || goal.kind === 'reference-latency'
      ? judgeReference(
          goal,
          scenario.reference?.label ?? 'reference',
          runs.get('rowbase')!,
          runs.get('reference'),
          note,
        )
      : judge(goal, series[0]!.summary, ratio),
  );
  for (const failure of failures) plan.log(`  ** ${failure}`);
  return { ...base, series, ...(ratio && { ratio }), ...(cpuRatio && { cpuRatio }), goals, failures };
}
