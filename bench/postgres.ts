/**
 * The PostgreSQL half of `npm run bench` (issue 15): Rowbase on PostgreSQL against a
 * hand-written Fastify + `pg` baseline (bench/baseline/pg-server.ts) on the same local
 * database, same tables and rows; then two Rowbase processes on that database behind the load
 * generator (half the connections to each port) with the PostgreSQL connections they hold.
 * The harness creates its own database on the server named by --postgres and drops it after.
 */
import path from 'node:path';
import pg from 'pg';
import { runLoad } from './load.js';
import type { LoadResult } from './load-spec.js';
import type { BenchOptions } from './options.js';
import type { Pinning } from './pinning.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import { SCENARIOS, type Goal, type Scenario, type ScenarioContext } from './scenarios.js';
import { BENCH_PROJECT, seedBenchProject, signIn } from './seed.js';
import { seedSearchPostgres } from './search.js';
import { projectSchema } from '../src/store/postgres/pg-migrations.js';
import type { ServerProcess } from './server-process.js';
import { ROOT, startRowbase } from './servers.js';
import { startServer } from './server-process.js';
import { formatCount, formatMs, spread, type Spread } from './stats.js';

/** Scenarios run on PostgreSQL, with the targets of issue 15 (≥ 0.7 × the pg baseline for GET, list and create). */
const PG_SCENARIOS: ReadonlyArray<readonly [id: string, goals: readonly Goal[]]> = [
  ['get-by-id', [{ kind: 'ratio', min: 0.7 }]],
  // Issue 26: a user's bearer token and an owner rule, ≥ 0.7 × the pg baseline doing the same checks.
  ['get-by-id-owner', [{ kind: 'ratio', min: 0.7 }]],
  ['list-total', [{ kind: 'ratio', min: 0.7 }]],
  ['list-owner', [{ kind: 'ratio', min: 0.7 }]],
  ['mixed', []],
  ['create', [{ kind: 'ratio', min: 0.7 }]],
  ['bulk-1000', []],
  ['batch-999', []],
  // Issue 25: ≥ 0.8 × a hand-written UPDATE ... WHERE on the same engine.
  ['update-by-filter', [{ kind: 'ratio', min: 0.8 }]],
  ['upsert-bulk-1000', [{ kind: 'ratio', min: 0.8 }]],
  [
    'search',
    [
      { kind: 'latency', stat: 'p50', maxMs: 50 },
      { kind: 'latency', stat: 'p99', maxMs: 200 },
    ],
  ],
];

/** The same scenarios, renamed pg-*, with the PostgreSQL targets. */
export const POSTGRES_SCENARIOS: readonly Scenario[] = PG_SCENARIOS.map(([id, goals]) => {
  const scenario = SCENARIOS.find((s) => s.id === id)!;
  return { ...scenario, id: `pg-${id}`, title: `PostgreSQL: ${scenario.title}`, goals };
});

/** Two Rowbase processes on one database, GET by id spread over both. */
export interface TwoProcessResult {
  readonly connectionsPerProcess: number;
  /** Summed req/s of the two processes per run. */
  readonly rps: Spread;
  /** The worse p99 of the two halves per run, ms. */
  readonly p99: Spread;
  /** The same load against one process (the pg-get-by-id Rowbase runs), for comparison. */
  readonly oneProcessRps: Spread;
  /** PostgreSQL connections open to the database during the runs (max seen), both processes together. */
  readonly pgConnections: number;
  readonly pinned: string;
}

export interface PostgresBenchResult {
  readonly scenarios: readonly ScenarioResult[];
  readonly twoProcesses?: TwoProcessResult;
  readonly seeding: Readonly<Record<string, number>>;
}

function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function startPgBaseline(url: string, cpus: string | undefined): Promise<ServerProcess> {
  return startServer({
    name: 'pg-baseline',
    cwd: ROOT,
    ...(cpus && { cpus }),
    args: [
      '--import',
      'tsx',
      path.join(ROOT, 'bench', 'baseline', 'pg-server.ts'),
      '--url',
      url,
      '--schema',
      `p_${BENCH_PROJECT}`,
    ],
    env: { NODE_ENV: 'production' },
  });
}

async function countConnections(admin: pg.Client, database: string): Promise<number> {
  const result = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
  return (result.rows[0] as { n: number }).n;
}

/** Runs the PostgreSQL scenarios (those in `wanted`) and the two-process run. */
export async function runPostgresBench(
  options: BenchOptions,
  runDir: string,
  platformKey: string,
  pinning: Pinning | undefined,
  wanted: (id: string) => boolean,
  log: (line: string) => void,
): Promise<PostgresBenchResult> {
  const scenarios = POSTGRES_SCENARIOS.filter((s) => wanted(s.id));
  const wantTwo = wanted('pg-two-processes');
  if (scenarios.length === 0 && !wantTwo) return { scenarios: [], seeding: {} };
  const database = `rowbase_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: options.postgresUrl });
  try {
    await admin.connect();
  } catch (error) {
    // No PostgreSQL here: the SQLite figures still stand; say so rather than lose the run.
    log(
      `PostgreSQL at ${options.postgresUrl} does not answer (${(error as Error).message}): PostgreSQL ` +
        'scenarios skipped (--postgres URL to choose a server, --postgres off to silence this).',
    );
    return { scenarios: [], seeding: {} };
  }
  await admin.query(`CREATE DATABASE "${database}"`);
  const url = databaseUrl(options.postgresUrl!, database);
  const env = { DATABASE_URL: url };
  const results: ScenarioResult[] = [];
  let twoProcesses: TwoProcessResult | undefined;
  let seeding: Record<string, number> = {};
  try {
    log(
      `PostgreSQL: seeding ${options.items.toLocaleString('en-US')} items, ${options.users} ` +
        `users and their notes in database ${database} (no 1M-row table)...`,
    );
    const seeder = await startRowbase(path.join(runDir, 'pg-seed'), platformKey, { env, name: 'rowbase-pg-seed' });
    const seeded = await seedBenchProject(seeder.url, platformKey, {
      items: options.items,
      users: options.users,
      notesPerUser: options.notesPerUser,
      events: 0,
      searchRows: scenarios.some((s) => s.id === 'pg-search') ? options.events : 0,
    }).finally(() => seeder.stop());
    seeding = Object.fromEntries(Object.entries(seeded.timings).map(([step, seconds]) => [`pg ${step}`, seconds]));
    if (seeded.searchRows > 0) {
      const started = performance.now();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await seedSearchPostgres(client, projectSchema(BENCH_PROJECT), seeded.searchRows).finally(() => client.end());
      seeding[`pg docs (${seeded.searchRows} rows, generated in SQL)`] = (performance.now() - started) / 1000;
    }
    await admin.query(`VACUUM ANALYZE`).catch(() => undefined);

    const rowbase = await startRowbase(path.join(runDir, 'pg-a'), platformKey, {
      env,
      name: 'rowbase-pg',
      ...(pinning && { cpus: pinning.server }),
    });
    const baseline = await startPgBaseline(url, pinning?.server);
    let context: ScenarioContext;
    try {
      context = { seeded, sessions: await signIn(rowbase.url, seeded) };
      for (const scenario of scenarios) {
        log(`${scenario.id}: ${scenario.title}`);
        results.push(
          await runScenario(
            scenario,
            context,
            { rowbase, baseline },
            { ...options, scratchDir: runDir, log, ...(pinning && { loadCpus: pinning.load }) },
          ),
        );
      }
    } finally {
      await Promise.all([rowbase.stop(), baseline.stop()]);
    }

    if (wantTwo) {
      // Two processes cannot each have a core of their own on a 2-core
      // machine: neither is pinned, the load generator keeps its core.
      log('pg-two-processes: GET by id over two Rowbase processes on one database (5 connections to each)');
      const a = await startRowbase(path.join(runDir, 'pg-one'), platformKey, { env, name: 'rowbase-pg-1' });
      const b = await startRowbase(path.join(runDir, 'pg-two'), platformKey, { env, name: 'rowbase-pg-2' });
      try {
        const getById = SCENARIOS.find((s) => s.id === 'get-by-id')!;
        const requests = getById.requests(context, 'rowbase');
        const half = Math.ceil(getById.connections / 2);
        const spec = (server: ServerProcess, connections: number, durationSeconds: number) => ({
          url: server.url,
          connections,
          durationSeconds,
          requests,
          loader: options.loader,
          ...(pinning && { loadCpus: pinning.load }),
        });
        const rps: number[] = [];
        const p99: number[] = [];
        const one: number[] = [];
        let connections = 0;
        await runLoad(spec(a, half, options.warmupSeconds), runDir);
        await runLoad(spec(b, half, options.warmupSeconds), runDir);
        for (let run = 1; run <= options.runs; run++) {
          const single: LoadResult = await runLoad(spec(a, getById.connections, options.durationSeconds), runDir);
          one.push(single.rps);
          const sampler = setInterval(
            () =>
              void countConnections(admin, database).then(
                (n) => (connections = Math.max(connections, n)),
                () => undefined,
              ),
            250,
          );
          const [ra, rb] = await Promise.all([
            runLoad(spec(a, half, options.durationSeconds), runDir),
            runLoad(spec(b, half, options.durationSeconds), runDir),
          ]);
          clearInterval(sampler);
          for (const r of [single, ra, rb])
            if (r.errors + r.non2xx > 0)
              throw new Error(
                `pg-two-processes: ${r.errors} errors, ${r.non2xx} non-2xx; first: ${JSON.stringify(r.firstFailure)}`,
              );
          rps.push(ra.rps + rb.rps);
          p99.push(Math.max(ra.latency.p99, rb.latency.p99));
          log(
            `  run ${run}/${options.runs}: one process ${formatCount(single.rps)} ` +
              `req/s; two processes ${formatCount(ra.rps + rb.rps)} req/s (p99 ` +
              `${formatMs(p99.at(-1)!)} ms), ${connections} PostgreSQL connections`,
          );
        }
        twoProcesses = {
          connectionsPerProcess: half,
          rps: spread(rps),
          p99: spread(p99),
          oneProcessRps: spread(one),
          pgConnections: connections,
          pinned: pinning ? `load generator on CPU ${pinning.load}; servers and PostgreSQL unpinned` : 'nothing pinned',
        };
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
  return { scenarios: results, ...(twoProcesses && { twoProcesses }), seeding };
}
