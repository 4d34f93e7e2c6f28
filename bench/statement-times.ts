/**
 * `npm run bench -- --statement-times [ids]`: how much of a request is SQLite. Runs built
 * Rowbase with bench/statement-timer.mjs preloaded, loads it with each scenario's requests
 * (and its reference load, when it has one: the plain list beside the expanded one), and
 * reports per request the server's CPU and the time spent inside better-sqlite3 statements,
 * statement by statement. Inside the server under load, not in a micro-benchmark: the CPU
 * caches are as cold as the rest of the request leaves them. Writes
 * bench/results/statements-<id>.txt.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load.js';
import type { LoadRequest } from './load-spec.js';
import type { BenchOptions } from './options.js';
import { choosePinning } from './pinning.js';
import { scenariosById, seedForScenarios } from './profile.js';
import type { ScenarioContext } from './scenarios.js';
import { signIn } from './seed.js';
import type { ServerProcess } from './server-process.js';
import { ROOT, startRowbase } from './servers.js';
import { formatCount } from './stats.js';

interface StatementTotal {
  readonly sql: string;
  readonly calls: number;
  readonly ns: number;
  readonly rows: number;
}

/** One load's figures, per request. */
interface Window {
  readonly label: string;
  readonly requests: number;
  readonly rps: number;
  readonly cpuMicros: number;
  readonly sqliteMicros: number;
  readonly statements: readonly StatementTotal[];
}

const TIMER = path.join(ROOT, 'bench', 'statement-timer.mjs');

/** Asks the timer for the totals since its last report (SIGUSR1) and reads them. */
async function takeTotals(server: ServerProcess, file: string): Promise<StatementTotal[]> {
  rmSync(file, { force: true });
  process.kill(server.pid, 'SIGUSR1');
  for (let waited = 0; !existsSync(file); waited += 10) {
    if (waited > 5_000) throw new Error(`the statement timer wrote no ${file} within 5 s`);
    await sleep(10);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as StatementTotal[];
}

async function measure(
  server: ServerProcess,
  file: string,
  label: string,
  requests: LoadRequest[],
  connections: number,
  options: BenchOptions,
  loadCpus: string | undefined,
  runDir: string,
): Promise<Window> {
  // A short warm-up, then a clean window.
  await runLoad(
    {
      url: server.url,
      connections,
      durationSeconds: 1,
      requests,
      loader: options.loader,
      ...(loadCpus && { loadCpus }),
    },
    runDir,
  );
  await takeTotals(server, file);
  const cpuBefore = server.cpuSeconds();
  const result = await runLoad(
    {
      url: server.url,
      connections,
      durationSeconds: options.profileSeconds,
      requests,
      loader: options.loader,
      ...(loadCpus && { loadCpus }),
    },
    runDir,
  );
  const cpu = server.cpuSeconds() - cpuBefore;
  const statements = (await takeTotals(server, file)).sort((a, b) => b.ns - a.ns);
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(
      `${label}: ${result.errors} errors, ${result.non2xx} non-2xx; first: ${JSON.stringify(result.firstFailure)}`,
    );
  const sqliteNs = statements.reduce((sum, s) => sum + s.ns, 0);
  return {
    label,
    requests: result.requests,
    rps: result.rps,
    cpuMicros: (cpu * 1e6) / result.requests,
    sqliteMicros: sqliteNs / 1000 / result.requests,
    statements,
  };
}

function formatWindow(window: Window): string[] {
  const lines = [
    `### ${window.label}`,
    `${formatCount(window.rps)} req/s; per request: ${window.cpuMicros.toFixed(0)} ` +
      `µs server CPU, of which ${window.sqliteMicros.toFixed(0)} µs inside SQLite ` +
      `statements (${((100 * window.sqliteMicros) / window.cpuMicros).toFixed(0)} %)`,
    '',
    '  calls/req   µs/call   rows/call   µs/req   statement',
  ];
  for (const s of window.statements) {
    const perRequest = s.calls / window.requests;
    if (perRequest < 0.01) continue;
    const sql = s.sql.replace(/\s+/g, ' ');
    lines.push(
      `  ${perRequest.toFixed(2).padStart(9)}   ${(s.ns / s.calls / 1000).toFixed(1).padStart(7)}   ` +
        `${(s.rows / s.calls).toFixed(1).padStart(9)}   ` +
        `${(s.ns / 1000 / window.requests).toFixed(1).padStart(6)}   ` +
        `${sql.length > 140 ? `${sql.slice(0, 140)}…` : sql}`,
    );
  }
  return lines;
}

/** Times SQLite statements under each scenario in `options.statementTimes`. */
export async function runStatementTimes(
  options: BenchOptions,
  runDir: string,
  platformKey: string,
  log: (line: string) => void,
): Promise<void> {
  const scenarios = scenariosById(options.statementTimes);
  const pinning = choosePinning(options.pin);
  const dataDir = path.join(runDir, 'statement-data');
  const seeded = await seedForScenarios(options, dataDir, platformKey, scenarios);
  for (const scenario of scenarios) {
    const file = path.join(runDir, `statements-${scenario.id}.json`);
    const server = await startRowbase(dataDir, platformKey, {
      nodeArgs: ['--import', TIMER],
      env: { ...scenario.rowbaseEnv, BENCH_STATEMENT_TIMES: file },
      ...(options.dist && { dist: options.dist }),
      ...(pinning && { cpus: pinning.server }),
    });
    const windows: Window[] = [];
    try {
      const sessions = scenario.needsAuth ? await signIn(server.url, seeded) : undefined;
      const given: ScenarioContext = { seeded, sessions };
      const context = scenario.prepare ? await scenario.prepare(given, server.url) : given;
      windows.push(
        await measure(
          server,
          file,
          `${scenario.id}: ${scenario.title}`,
          scenario.requests(context, 'rowbase'),
          scenario.connections,
          options,
          pinning?.load,
          runDir,
        ),
      );
      if (scenario.reference)
        windows.push(
          await measure(
            server,
            file,
            `${scenario.id}, reference: ${scenario.reference.label}`,
            scenario.reference.requests(context),
            scenario.connections,
            options,
            pinning?.load,
            runDir,
          ),
        );
    } finally {
      await server.stop();
    }
    const text = [
      `# SQLite statement times under ${scenario.id} (${options.profileSeconds} s of ` +
        `load each, timer preloaded, server CPU ${pinning?.server ?? 'unpinned'})`,
      '',
      ...windows.flatMap((w) => [...formatWindow(w), '']),
    ].join('\n');
    const out = path.join(ROOT, 'bench', 'results', `statements-${scenario.id}.txt`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
    log(text);
  }
}
