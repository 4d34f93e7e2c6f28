/**
 * `npm run bench`: seeds a project through Rowbase's API, runs every scenario against
 * Rowbase and the baseline back to back, measures the many-projects footprint, and writes
 * bench/results/last-run.json and the results section of docs/benchmarks.md.
 * Exits 1 when any scenario saw errors or non-2xx answers.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runFootprint, type FootprintResult } from './footprint.js';
import { describeMachine } from './machine.js';
import { judgeCheck } from './check.js';
import { measureColdStart, type ColdStartResult } from './cold-start.js';
import { parseOptions, type BenchOptions } from './options.js';
import { choosePinning } from './pinning.js';
import { seedSearchSqlite } from './search.js';
import { runPostgresBench, type PostgresBenchResult } from './postgres.js';
import { runProfiles } from './profile.js';
import { runStatementTimes } from './statement-times.js';
import { runRealtimeBench, type RealtimeResult } from './realtime.js';
import { writeReport, type BenchReport } from './report.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import { SCENARIOS, type ScenarioContext } from './scenarios.js';
import { BENCH_PROJECT, seedBenchProject, type Session, signIn } from './seed.js';
import type { ServerProcess } from './server-process.js';
import { ROOT, startBaseline, startRowbase } from './servers.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function benchmark(options: BenchOptions, runDir: string, platformKey: string): Promise<BenchReport> {
  const started = Date.now();
  const machine = describeMachine(ROOT);
  const pinning = choosePinning(options.pin);
  const wanted = (id: string) => options.only.length === 0 || options.only.includes(id);
  const scenarios = SCENARIOS.filter((s) => wanted(s.id));
  const results: ScenarioResult[] = [];
  let seeding: Record<string, number> = {};
  let coldStart: ColdStartResult | undefined;

  if (scenarios.length > 0) {
    const dataDir = path.join(runDir, 'rowbase');
    log(
      `Seeding ${options.items.toLocaleString('en-US')} items, ${options.users} users, ` +
        `${(options.users * options.notesPerUser).toLocaleString('en-US')} notes and ` +
        `${options.events.toLocaleString('en-US')} events through the bulk API...`,
    );
    const seeder = await startRowbase(dataDir, platformKey, { seeding: true });
    let seeded: Awaited<ReturnType<typeof seedBenchProject>>;
    let sessions: Session[] | undefined;
    try {
      let shown = 0;
      seeded = await seedBenchProject(seeder.url, platformKey, {
        items: options.items,
        users: options.users,
        notesPerUser: options.notesPerUser,
        events: options.events,
        posts: scenarios.some((s) => s.id.startsWith('expand-')) ? options.posts : 0,
        searchRows: scenarios.some((s) => s.id === 'search' || s.id === 'search-one') ? options.events : 0,
        onProgress: (rows) => {
          if (rows - shown < 100_000) return;
          shown = rows;
          log(`  events: ${shown.toLocaleString('en-US')}`);
        },
      });
      // Signed in here, so the sessions are in the project file the baseline gets a copy of (issue 26).
      sessions = await signIn(seeder.url, seeded);
    } finally {
      await seeder.stop();
    }
    seeding = seeded.timings;
    // The baseline serves a copy of the same file: same rows, same indexes, same page layout.
    // The seeding server closed cleanly, so the file is checkpointed and complete on its own.
    const projectFile = path.join(dataDir, 'projects', `${BENCH_PROJECT}.db`);
    if (seeded.searchRows > 0) {
      const started = performance.now();
      seedSearchSqlite(projectFile, seeded.searchRows);
      seeding = {
        ...seeding,
        [`docs (${seeded.searchRows} rows, generated in SQL)`]: (performance.now() - started) / 1000,
      };
    }
    for (const [step, seconds] of Object.entries(seeding)) log(`  ${step}: ${seconds.toFixed(1)} s`);

    if (existsSync(`${projectFile}-wal`))
      throw new Error(`${projectFile}-wal still exists: the seeding server did not close cleanly`);
    const baselineFile = path.join(runDir, 'baseline.db');
    copyFileSync(projectFile, baselineFile);
    // The project's JWT secret, where Rowbase keeps it: the baseline verifies the same tokens.
    const baselineSystemFile = path.join(runDir, 'baseline-system.db');
    if (existsSync(path.join(dataDir, 'system.db-wal')))
      throw new Error('system.db-wal still exists: the seeding server did not close cleanly');
    copyFileSync(path.join(dataDir, 'system.db'), baselineSystemFile);

    if (wanted('cold-start')) {
      coldStart = await measureColdStart(dataDir, platformKey, seeded, pinning?.server);
      log(
        `cold start to first answered GET: median ${coldStart.ms.median.toFixed(0)} ` +
          `ms (${coldStart.ms.min.toFixed(0)}–${coldStart.ms.max.toFixed(0)})`,
      );
    }
    log(
      pinning
        ? `Servers pinned to CPU ${pinning.server}, ${options.loader} to CPU ${pinning.load} (taskset).`
        : `Not pinned; load generator: ${options.loader}.`,
    );
    const rowbaseOptions = { ...(pinning && { cpus: pinning.server }), ...(options.dist && { dist: options.dist }) };
    let rowbase = await startRowbase(dataDir, platformKey, rowbaseOptions);
    let baseline: ServerProcess;
    if (options.ab) {
      // A/B: the other build serves a copy of the same data folder in the baseline's place.
      const abDir = path.join(runDir, 'rowbase-ab');
      cpSync(dataDir, abDir, { recursive: true });
      rmSync(path.join(abDir, 'rowbase.pid'), { force: true });
      baseline = await startRowbase(abDir, platformKey, {
        ...(pinning && { cpus: pinning.server }),
        dist: options.ab,
        name: 'ab',
      });
      log(`A/B: "baseline" is the Rowbase build in ${options.ab}.`);
    } else {
      baseline = await startBaseline(baselineFile, pinning?.server, {
        systemDb: baselineSystemFile,
        project: seeded.projectId,
      });
    }
    try {
      log(
        sessions
          ? `Signed in ${sessions.length} users.`
          : 'No login endpoint in this build: auth scenarios are skipped.',
      );
      const context: ScenarioContext = { seeded, sessions };
      const servers: Record<'rowbase' | 'baseline', ServerProcess> = { rowbase, baseline };
      // Scenarios with settings of their own run last, each on a Rowbase restarted with them.
      for (const scenario of [...scenarios.filter((s) => !s.rowbaseEnv), ...scenarios.filter((s) => s.rowbaseEnv)]) {
        if (scenario.rowbaseEnv) {
          await rowbase.stop();
          rowbase = await startRowbase(dataDir, platformKey, { ...rowbaseOptions, env: scenario.rowbaseEnv });
          servers.rowbase = rowbase;
        }
        log(`${scenario.id}: ${scenario.title}`);
        results.push(
          await runScenario(scenario, context, servers, {
            ...options,
            scratchDir: runDir,
            log,
            ...(pinning && { loadCpus: pinning.load }),
          }),
        );
      }
    } finally {
      await Promise.all([rowbase.stop(), baseline.stop()]);
    }
  }

  let postgres: PostgresBenchResult | undefined;
  if (options.postgresUrl && !options.ab) {
    postgres = await runPostgresBench(options, runDir, platformKey, pinning, wanted, log);
    results.push(...postgres.scenarios);
    seeding = { ...seeding, ...postgres.seeding };
  }

  let footprint: FootprintResult | undefined;
  if (wanted('footprint')) {
    log(`footprint: ${options.footprintProjects} projects × ${options.footprintTables} tables`);
    const dataDir = path.join(runDir, 'footprint');
    footprint = await runFootprint({
      projects: options.footprintProjects,
      tablesPerProject: options.footprintTables,
      platformKey,
      start: (seeding) => startRowbase(dataDir, platformKey, { seeding }),
      log,
    });
    log(
      `  RSS after touching all: ${(footprint.rssAfterTouch / 2 ** 20).toFixed(0)} ` +
        `MiB; cold first request p50 ${footprint.coldFirstRequest.p50.toFixed(2)} ` +
        `ms, p99 ${footprint.coldFirstRequest.p99.toFixed(2)} ms`,
    );
  }

  let realtime: RealtimeResult | undefined;
  if (wanted('realtime')) {
    log('realtime: fan-out latency and idle clients');
    let counter = 0;
    // BENCH_REALTIME_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the realtime servers.
    realtime = await runRealtimeBench({
      platformKey,
      start: (name, env, cpus) =>
        startRowbase(path.join(runDir, `${name}-${++counter}`), platformKey, {
          name,
          env,
          ...(cpus && { cpus }),
          ...(options.dist && { dist: options.dist }),
          ...(process.env.BENCH_REALTIME_NODE_ARGS && { nodeArgs: process.env.BENCH_REALTIME_NODE_ARGS.split(' ') }),
        }),
      ...(pinning && { pinning: { server: pinning.server, load: pinning.load } }),
      postgresUrl: options.postgresUrl,
      subscribers: options.quick ? 200 : 1000,
      writesPerSecond: 200,
      seconds: options.quick ? 3 : 15,
      idleClients: options.quick ? 1000 : 10_000,
      loadSeconds: options.quick ? 2 : options.durationSeconds,
      scratchDir: runDir,
      loader: options.loader,
      log,
    });
    for (const goal of realtime.goals) log(`  ${goal.met ? 'met' : 'NOT MET'}: ${goal.text}: ${goal.measured}`);
  }

  return {
    startedAt: new Date(started).toISOString(),
    wallSeconds: (Date.now() - started) / 1000,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    quick: options.quick,
    plan: {
      runs: options.runs,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      loader: options.loader,
      ...(pinning && { pinning }),
    },
    machine,
    seeding,
    scenarios: results,
    ...(coldStart && { coldStart }),
    ...(postgres?.twoProcesses && { twoProcesses: postgres.twoProcesses }),
    ...(footprint ? { footprint } : { footprintSkipped: 'not selected with --only' }),
    ...(realtime && { realtime }),
  };
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const runDir = path.join(ROOT, '.bench-tmp', `run-${Date.now()}`);
  mkdirSync(runDir, { recursive: true });
  const platformKey = `bench_${randomBytes(24).toString('hex')}`;
  try {
    if (options.profile.length > 0) {
      await runProfiles(options, runDir, platformKey, log);
      return 0;
    }
    if (options.statementTimes.length > 0) {
      await runStatementTimes(options, runDir, platformKey, log);
      return 0;
    }
    const report = await benchmark(options, runDir, platformKey);
    writeReport(
      report,
      path.join(
        ROOT,
        'bench',
        'results',
        options.check
          ? 'last-check.json'
          : options.ab
            ? 'last-ab.json'
            : options.quick
              ? 'last-quick-run.json'
              : 'last-run.json',
      ),
      options.docs ? path.join(ROOT, 'docs', 'benchmarks.md') : undefined,
    );
    const failures = report.scenarios.flatMap((s) => s.failures);
    if (options.check) {
      const verdict = judgeCheck(report.scenarios);
      for (const line of verdict.lines) log(line);
      if (failures.length > 0) for (const failure of failures) log(`  FAILED: ${failure}`);
      log(
        `\nCheck ${verdict.ok && failures.length === 0 ? 'passed' : 'FAILED'} in ${report.wallSeconds.toFixed(0)} s.`,
      );
      return verdict.ok && failures.length === 0 ? 0 : 1;
    }
    const unmet = [
      ...report.scenarios.flatMap((s) => s.goals.map((g) => ({ ...g, scenario: s.id }))),
      ...(report.footprint?.goals ?? []).map((g) => ({ ...g, scenario: 'footprint' })),
    ].filter((g) => g.met === false);
    log(`\nDone in ${report.wallSeconds.toFixed(0)} s.${options.docs ? ' Wrote docs/benchmarks.md.' : ''}`);
    for (const goal of unmet) log(`  target not met: ${goal.scenario}: ${goal.text} (measured ${goal.measured})`);
    if (failures.length > 0) {
      log(`\nFAILED: ${failures.length} run(s) had errors or non-2xx answers:`);
      for (const failure of failures) log(`  ${failure}`);
      return 1;
    }
    return 0;
  } finally {
    if (!options.keep) rmSync(runDir, { recursive: true, force: true });
  }
}

// Ctrl-C: exit normally so the exit hook stops the servers this run started.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
