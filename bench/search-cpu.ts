/**
 * CPU per full-text search (issue 25, contract §18), measured in the server process (and, on
 * PostgreSQL, in the database backends serving it), query by query, for builds compared on a
 * busy machine where wall-clock latency under load moves with whatever else runs.
 *
 *   node --import tsx bench/search-cpu.ts --engine sqlite --dist dist [--dist /tmp/b-REV/dist]
 *   node --import tsx bench/search-cpu.ts --engine postgres --dist dist [--rounds 3]
 *     (--cpu-prof DIR also writes a V8 CPU profile per server; the profiler inflates the figures)
 *
 * The `docs` table of the search scenario (bench/search.ts: 1,000,000 rows, the same generated
 * words) is built once and kept: in `--data` (default /tmp/rowbase-search-cpu-<engine>) for
 * SQLite, and in the database `rowbase_search_cpu` of `--postgres` for PostgreSQL (plus its
 * data folder); `--fresh` builds it again. Each `--dist` folder (a `tsc -p tsconfig.build.json`
 * output) is then started in turn over that data; after a warm-up pass, every round sends the
 * scenario's 100 requests one at a time and reads the CPU time around each: the server's every
 * thread from /proc/PID/task/TID/schedstat, and on PostgreSQL the backends of its connections
 * (pg_stat_activity) from /proc/PID/schedstat. It prints the median CPU and wall time per query
 * shape (one word, two words, phrase, `a -b`, `a or b`), and asserts that every build answers
 * each query with the same ids and total.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { projectSchema } from '../src/store/postgres/pg-migrations.js';
import { expectStatus } from './http-client.js';
import { cpuNanoseconds } from './proc.js';
import { DOCS, searchQueries, searchRequests, seedSearchPostgres, seedSearchSqlite } from './search.js';
import type { ServerProcess } from './server-process.js';
import { startRowbase } from './servers.js';

const PLATFORM_KEY = 'search-cpu-platform-key-0123456789abcdef';
const PROJECT = 'bench';
const PG_DATABASE = 'rowbase_search_cpu';
const SHAPES = ['one word', 'two words', 'phrase', 'a -b', 'a or b'] as const;

/** CPU nanoseconds of single-threaded processes (PostgreSQL backends); a vanished one counts 0. */
function processesNanoseconds(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the backend ended
    }
  }
  return total;
}

function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

interface Setup {
  readonly dataDir: string;
  readonly env: Record<string, string>;
  readonly rows: number;
  /** The build that creates the project and table. */
  readonly dist: string;
}

/** Creates the project and the `docs` table through the API, then generates the rows; returns the publishable key. */
async function build(setup: Setup, engine: string, postgresUrl: string): Promise<string> {
  rmSync(setup.dataDir, { recursive: true, force: true });
  mkdirSync(setup.dataDir, { recursive: true });
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${PG_DATABASE}"`);
    await admin.query(`CREATE DATABASE "${PG_DATABASE}"`);
    await admin.end();
  }
  const server = await startRowbase(setup.dataDir, PLATFORM_KEY, {
    seeding: true,
    env: setup.env,
    name: 'seed',
    dist: setup.dist,
  });
  let key: string;
  try {
    const project = await expectStatus(
      201,
      server.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PLATFORM_KEY },
      { name: 'Search CPU', id: PROJECT },
    );
    const admin = { 'x-admin-key': project.body.data.admin_key as string };
    await expectStatus(201, server.url, 'PUT', `/p/${PROJECT}/v1/tables/${DOCS.name}`, admin, DOCS.definition);
    key = project.body.data.publishable_key as string;
  } finally {
    await server.stop();
  }
  const started = performance.now();
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: setup.env.DATABASE_URL });
    await client.connect();
    await seedSearchPostgres(client, projectSchema(PROJECT), setup.rows).finally(() => client.end());
  } else {
    seedSearchSqlite(path.join(setup.dataDir, 'projects', `${PROJECT}.db`), setup.rows);
  }
  console.log(`generated ${setup.rows} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  writeFileSync(path.join(setup.dataDir, 'search-cpu.json'), JSON.stringify({ key, rows: setup.rows }));
  return key;
}

interface Measured {
  /** Per query: CPU µs (server + database backends) and wall µs of each round. */
  readonly cpu: number[][];
  /** Per query: the database backends' part of `cpu` (PostgreSQL). */
  readonly database: number[][];
  readonly wall: number[][];
  /** Per query: the answer's ids and total, to compare builds. */
  readonly answers: string[];
}

async function backendPids(client: pg.Client | undefined): Promise<number[]> {
  if (!client) return [];
  const result = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
    PG_DATABASE,
  ]);
  return result.rows.map((row: { pid: number }) => row.pid);
}

async function measure(
  server: ServerProcess,
  key: string,
  rows: number,
  rounds: number,
  monitor: pg.Client | undefined,
): Promise<Measured> {
  const requests = searchRequests(`/p/${PROJECT}/api/${DOCS.name}`, { 'x-api-key': key }, rows);
  const cpu: number[][] = requests.map(() => []);
  const database: number[][] = requests.map(() => []);
  const wall: number[][] = requests.map(() => []);
  const answers: string[] = [];
  const send = async (index: number) => {
    const request = requests[index]!;
    const response = await fetch(`${server.url}${request.path}`, { headers: request.headers });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${request.path}: ${response.status} ${text.slice(0, 300)}`);
    const body = JSON.parse(text) as { data: { id: string }[]; total: number };
    return `${body.total}:${body.data.map((row) => row.id).join(',')}`;
  };
  for (let i = 0; i < requests.length; i++) answers.push(await send(i));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < requests.length; i++) {
      const pids = await backendPids(monitor);
      const beforeDatabase = processesNanoseconds(pids);
      const before = cpuNanoseconds(server.pid) + beforeDatabase;
      const started = performance.now();
      await send(i);
      wall[i]!.push((performance.now() - started) * 1000);
      const afterDatabase = processesNanoseconds(pids);
      cpu[i]!.push((cpuNanoseconds(server.pid) + afterDatabase - before) / 1000);
      database[i]!.push((afterDatabase - beforeDatabase) / 1000);
    }
  }
  return { cpu, database, wall, answers };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** One line of the table: CPU mean and max, wall mean, database CPU mean (ms). */
function line(label: string, cpu: number[], wall: number[], database: number[]): string {
  const ms = (us: number, width: number) => (us / 1000).toFixed(2).padStart(width);
  return (
    `  ${label.padEnd(10)} ${ms(mean(cpu), 9)} ${ms(Math.max(...cpu), 8)} ` +
    `${ms(mean(wall), 10)} ${ms(mean(database), 16)}`
  );
}

function report(dist: string, measured: Measured): void {
  console.log(`\n${dist}: median of the rounds per query, then the mean over each shape's 20 queries (ms)`);
  const head = `  ${'shape'.padEnd(10)} ${'CPU mean'.padStart(9)} ${'CPU max'.padStart(8)} ${'wall mean'.padStart(10)}`;
  console.log(`${head} ${'of it, database'.padStart(16)}`);
  const cpu = measured.cpu.map(median);
  const database = measured.database.map(median);
  const wall = measured.wall.map(median);
  SHAPES.forEach((shape, s) => {
    const pick = (values: number[]) => values.filter((_, i) => i % SHAPES.length === s);
    console.log(line(shape, pick(cpu), pick(wall), pick(database)));
  });
  console.log(line('all', cpu, wall, database));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engine: { type: 'string', default: 'sqlite' },
      dist: { type: 'string', multiple: true },
      data: { type: 'string' },
      rows: { type: 'string', default: '1000000' },
      rounds: { type: 'string', default: '3' },
      postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
      fresh: { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
    },
  });
  const engine = values.engine!;
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine sqlite or postgres');
  const dataDir = path.resolve(values.data ?? `/tmp/rowbase-search-cpu-${engine}`);
  const env: Record<string, string> =
    engine === 'postgres' ? { DATABASE_URL: databaseUrl(values.postgres!, PG_DATABASE) } : {};
  const dists = values.dist ?? ['dist'];
  const setup: Setup = { dataDir, env, rows: Number(values.rows), dist: dists[0]! };
  const saved = path.join(dataDir, 'search-cpu.json');
  let key: string;
  let rows: number;
  if (values.fresh || !existsSync(saved)) {
    key = await build(setup, engine, values.postgres!);
    rows = setup.rows;
  } else {
    ({ key, rows } = JSON.parse(readFileSync(saved, 'utf8')) as { key: string; rows: number });
  }
  console.log(`${engine}: ${rows} rows, queries such as ${JSON.stringify(searchQueries(rows).slice(0, 5))}`);
  const monitor = engine === 'postgres' ? new pg.Client({ connectionString: values.postgres }) : undefined;
  await monitor?.connect();
  let reference: string[] | undefined;
  try {
    for (const dist of dists) {
      const profile = values['cpu-prof'];
      const server = await startRowbase(dataDir, PLATFORM_KEY, {
        dist,
        env,
        name: dist,
        ...(profile && { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile)] }),
      });
      try {
        const measured = await measure(server, key, rows, Number(values.rounds), monitor);
        report(dist, measured);
        if (reference === undefined) reference = measured.answers;
        const differing = measured.answers.filter((answer, i) => answer !== reference![i]).length;
        if (differing > 0) console.log(`  ${differing} answers differ from the first build's`);
      } finally {
        await server.stop();
      }
    }
  } finally {
    await monitor?.end();
  }
}

await main();
