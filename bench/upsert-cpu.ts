/**
 * CPU per bulk upsert (the `upsert-bulk-1000` scenario, contract §18), measured in the server
 * process, for builds compared on a busy machine, on SQLite or PostgreSQL, optionally beside the
 * hand-written baseline:
 *
 *   node --import tsx bench/upsert-cpu.ts --dist dist --dist /tmp/b-REV/dist [--baseline]
 *   node --import tsx bench/upsert-cpu.ts --engine postgres [--postgres URL] --dist dist --baseline
 *   node --import tsx bench/upsert-cpu.ts --dist dist --cpu-prof /tmp/prof   (V8 profiles too)
 *
 * Each target (a `--dist` build, and with `--baseline` bench/baseline/server.ts or pg-server.ts)
 * serves its own data: a fresh data folder (SQLite) or a database of its own made on the server
 * of `--postgres` and dropped at the end, holding the benchmark's `stock` table with its 1,000
 * rows. Each request is the scenario's: POST /bulk?on_conflict=sku of those 1,000 skus with the
 * values of version 1 or 2 in turn, so every row exists and every update changes it. After a
 * warm-up, each round sends `--requests` of them to each target in turn (the order rotates by
 * round) and reads the server's CPU time (every thread, from /proc/PID/task/TID/schedstat)
 * around them. On PostgreSQL it also reads the CPU of the database's backends (the processes
 * pg_stat_activity lists for the target's database; PostgreSQL must run on this machine), and
 * prints server + backends: with one connection, both are in each request's time.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { expectStatus } from './http-client.js';
import { DEFAULT_POSTGRES_URL } from './options.js';
import { cpuNanoseconds } from './proc.js';
import { BENCH_TABLES, STOCK, STOCK_ROWS, stockRow } from './schema.js';
import { startServer, type ServerProcess } from './server-process.js';
import { ROOT, startBaseline, startRowbase } from './servers.js';
import { spread } from './stats.js';

const PLATFORM_KEY = 'upsert-cpu-platform-key-0123456789abcdef';
const PROJECT = 'bench';

interface Target {
  readonly name: string;
  readonly server: ServerProcess;
  readonly headers: Record<string, string>;
  readonly perRequestUs: number[];
  /** Server and database backends together (PostgreSQL only). */
  readonly withDatabaseUs: number[];
  /** The target's database, whose backends' CPU is counted (PostgreSQL only). */
  readonly database: string | undefined;
  /** Removes what the target was served from (data folder, database). */
  readonly cleanUp: () => Promise<void>;
}

/** Where a target's data lives: a data folder, and on PostgreSQL a database of its own. */
interface Place {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly database: string | undefined;
  readonly cleanUp: () => Promise<void>;
}

async function makePlace(postgresUrl: string | undefined, index: number): Promise<Place> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-upsert-cpu-'));
  if (!postgresUrl)
    return {
      dataDir,
      databaseUrl: undefined,
      database: undefined,
      cleanUp: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  const database = `rowbase_upsert_cpu_${process.pid}_${index}`;
  await withAdmin(postgresUrl, (admin) => admin.query(`CREATE DATABASE "${database}"`));
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    database,
    cleanUp: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await withAdmin(postgresUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(postgresUrl: string, use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end();
  }
}

/** Creates the project, the benchmark's tables and the 1,000 stock rows; returns the publishable key's headers. */
async function seed(url: string): Promise<Record<string, string>> {
  const project = await expectStatus(
    201,
    url,
    'POST',
    '/v1/projects',
    { 'x-platform-key': PLATFORM_KEY },
    { name: 'Upsert CPU', id: PROJECT },
  );
  const admin = { 'x-admin-key': project.body.data.admin_key as string };
  // Every benchmark table: the baseline prepares its statements for all of them when it starts.
  for (const table of BENCH_TABLES)
    await expectStatus(201, url, 'PUT', `/p/${PROJECT}/v1/tables/${table.name}`, admin, table.definition);
  const rows = Array.from({ length: STOCK_ROWS }, (_, n) => stockRow(n));
  await expectStatus(201, url, 'POST', `/p/${PROJECT}/api/${STOCK.name}/bulk`, admin, rows);
  // The scenario's caller: the publishable key, under the table's open rules.
  return { 'x-api-key': project.body.data.publishable_key as string, 'content-type': 'application/json' };
}

async function startTarget(
  dist: string,
  index: number,
  postgresUrl: string | undefined,
  profileDir: string | undefined,
): Promise<Target> {
  const place = await makePlace(postgresUrl, index);
  let server: ServerProcess | undefined;
  try {
    server = await startRowbase(place.dataDir, PLATFORM_KEY, {
      dist,
      name: `build ${index + 1}`,
      ...(place.databaseUrl && { env: { DATABASE_URL: place.databaseUrl } }),
      ...(profileDir && { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] }),
    });
    const headers = await seed(server.url);
    return {
      name: dist,
      server,
      headers,
      perRequestUs: [],
      withDatabaseUs: [],
      database: place.database,
      cleanUp: place.cleanUp,
    };
  } catch (error) {
    await server?.stop();
    await place.cleanUp();
    throw error;
  }
}

/** The hand-written baseline over data that a Rowbase build (`dist`) seeded and then left. */
async function startBaselineTarget(dist: string, index: number, postgresUrl: string | undefined): Promise<Target> {
  const place = await makePlace(postgresUrl, index);
  let server: ServerProcess | undefined;
  try {
    const seeder = await startRowbase(place.dataDir, PLATFORM_KEY, {
      dist,
      name: 'seeder',
      ...(place.databaseUrl && { env: { DATABASE_URL: place.databaseUrl } }),
    });
    try {
      await seed(seeder.url);
    } finally {
      await seeder.stop();
    }
    if (place.databaseUrl) {
      server = await startServer({
        name: 'pg-baseline',
        cwd: ROOT,
        args: [
          '--import',
          'tsx',
          path.join(ROOT, 'bench', 'baseline', 'pg-server.ts'),
          '--url',
          place.databaseUrl,
          '--schema',
          `p_${PROJECT}`,
        ],
        env: { NODE_ENV: 'production' },
      });
    } else {
      const file = path.join(place.dataDir, 'baseline.db');
      copyFileSync(path.join(place.dataDir, 'projects', `${PROJECT}.db`), file);
      server = await startBaseline(file);
    }
    const headers = { 'content-type': 'application/json' };
    return {
      name: 'baseline',
      server,
      headers,
      perRequestUs: [],
      withDatabaseUs: [],
      database: place.database,
      cleanUp: place.cleanUp,
    };
  } catch (error) {
    await server?.stop();
    await place.cleanUp();
    throw error;
  }
}

/** Sends `count` upserts one after another, alternating the bodies; throws unless each is 200 with every row. */
async function sendUpserts(target: Target, bodies: readonly string[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${target.server.url}/p/${PROJECT}/api/${STOCK.name}/bulk?on_conflict=sku`, {
      method: 'POST',
      headers: target.headers,
      body: bodies[i % bodies.length]!,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${target.name}: ${response.status} ${text.slice(0, 300)}`);
    const written = (JSON.parse(text) as { data: unknown[] }).data.length;
    if (written !== STOCK_ROWS) throw new Error(`${target.name}: ${written} rows answered, ${STOCK_ROWS} sent`);
  }
}

/** CPU nanoseconds of the backends serving `database` now, by PID (processes of this machine). */
async function backendNanoseconds(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const result = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  const byPid = new Map<number, number>();
  for (const { pid } of result.rows as { pid: number }[]) {
    try {
      byPid.set(pid, cpuNanoseconds(pid));
    } catch {
      // the backend ended, or is not a process of this machine
    }
  }
  return byPid;
}

/** CPU the backends used between two readings; a backend that started in between counts from 0. */
function backendDelta(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, ns] of after) total += ns - (before.get(pid) ?? 0);
  return total;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string', multiple: true },
      engine: { type: 'string', default: 'sqlite' },
      postgres: { type: 'string', default: DEFAULT_POSTGRES_URL },
      baseline: { type: 'boolean', default: false },
      requests: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '6' },
      warmup: { type: 'string', default: '20' },
      'cpu-prof': { type: 'string' },
    },
  });
  if (values.engine !== 'sqlite' && values.engine !== 'postgres') throw new Error('--engine sqlite|postgres');
  const postgresUrl = values.engine === 'postgres' ? values.postgres : undefined;
  const dists = values.dist ?? ['dist'];
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  // Even counts: each measured batch sends both versions equally often.
  const bodies = [1, 2].map((version) =>
    JSON.stringify(Array.from({ length: STOCK_ROWS }, (_, n) => stockRow(n, version))),
  );

  const targets: Target[] = [];
  const admin = postgresUrl ? new pg.Client({ connectionString: postgresUrl }) : undefined;
  await admin?.connect();
  try {
    for (const [index, dist] of dists.entries())
      targets.push(await startTarget(dist, index, postgresUrl, values['cpu-prof']));
    if (values.baseline) targets.push(await startBaselineTarget(dists[0]!, dists.length, postgresUrl));
    for (const target of targets) await sendUpserts(target, bodies, Number(values.warmup));
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(round + k) % targets.length]!;
        const backendsBefore = admin && (await backendNanoseconds(admin, target.database!));
        const before = cpuNanoseconds(target.server.pid);
        await sendUpserts(target, bodies, requests);
        const server = cpuNanoseconds(target.server.pid) - before;
        target.perRequestUs.push(server / 1000 / requests);
        if (admin && backendsBefore) {
          const backends = backendDelta(backendsBefore, await backendNanoseconds(admin, target.database!));
          target.withDatabaseUs.push((server + backends) / 1000 / requests);
        }
      }
      const line = targets.map(
        (target) =>
          `${target.perRequestUs.at(-1)!.toFixed(0).padStart(6)} µs` +
          (admin ? ` (+db ${target.withDatabaseUs.at(-1)!.toFixed(0).padStart(6)})` : ''),
      );
      console.log(`round ${round + 1}: ${line.join('  ')}`);
    }
    console.log(
      `\n${values.engine}: server CPU per upsert of ${STOCK_ROWS} rows ` +
        `(${rounds} rounds of ${requests}; median, range):`,
    );
    report(targets, (target) => target.perRequestUs);
    if (admin) {
      console.log('\nServer and PostgreSQL backends together, per upsert:');
      report(targets, (target) => target.withDatabaseUs);
    }
  } finally {
    await admin?.end();
    for (const target of targets) {
      await target.server.stop();
      await target.cleanUp();
    }
  }
}

/** One line per target: the median of `figures` in ms, the range, and the ratio to the first target's. */
function report(targets: readonly Target[], figures: (target: Target) => number[]): void {
  const first = spread(figures(targets[0]!)).median;
  for (const target of targets) {
    const s = spread(figures(target));
    console.log(
      `  ${target.name.padEnd(28)} ${(s.median / 1000).toFixed(2)} ms ` +
        `(${(s.min / 1000).toFixed(2)}–${(s.max / 1000).toFixed(2)})  ${(s.median / first).toFixed(3)} × the first`,
    );
  }
}

await main();
