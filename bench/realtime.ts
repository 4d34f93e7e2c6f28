/**
 * The realtime scenarios of issue 12 (docs/realtime.md):
 * - fan-out: N subscribers (half bound to users under an owner-only rule) on one table while
 *   rows are written at a fixed rate; write-to-delivery latency per delivered event, on SQLite
 *   (one process) and on PostgreSQL (two processes, writes and subscribers split between them);
 * - idle: many subscribed, idle clients in one process: RSS growth, and GET-by-id throughput
 *   with them connected against without.
 * Latency is measured in this process: the time a create was sent → the time its event arrived.
 */
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { expectStatus } from './http-client.js';
import { runLoad } from './load.js';
import { summariseLatency, type Latency } from './load-spec.js';
import type { GoalResult } from './run-scenario.js';
import type { ServerProcess } from './server-process.js';
import { formatMiB, formatMs, spread } from './stats.js';

export interface RealtimeBenchOptions {
  readonly platformKey: string;
  /** Starts a Rowbase process over a fresh data folder, with extra environment. */
  readonly start: (name: string, env: Record<string, string>, cpus?: string) => Promise<ServerProcess>;
  /** CPUs for the idle scenario's server and load generator (taskset), as for the other scenarios. */
  readonly pinning?: { readonly server: string; readonly load: string };
  readonly postgresUrl: string | undefined;
  readonly subscribers: number;
  readonly writesPerSecond: number;
  readonly seconds: number;
  readonly idleClients: number;
  readonly loadSeconds: number;
  readonly scratchDir: string;
  readonly loader: 'wrk' | 'autocannon';
  readonly log: (line: string) => void;
}

export interface FanOutResult {
  readonly engine: 'sqlite' | 'postgres';
  readonly processes: number;
  readonly subscribers: number;
  readonly writes: number;
  readonly expectedDeliveries: number;
  readonly deliveries: number;
  readonly latency: Latency;
  /** How long the creates took to be answered (201): delivery cannot beat the commit. */
  readonly writeLatency: Latency;
  /**
   * CPU seconds the server processes used from the first write to the last
   * delivery: the cost of fan-out, less noisy than latency on a busy machine.
   */
  readonly serverCpuSeconds: number;
  /**
   * CPU seconds this harness (the 1,000 readers) used meanwhile:
   * when it is near the wall time, the readers are the limit.
   */
  readonly readerCpuSeconds: number;
}

export interface RealtimeResult {
  readonly fanOut: readonly FanOutResult[];
  readonly idle: {
    readonly clients: number;
    readonly rssBefore: number;
    readonly rssAfter: number;
    /** Medians of the runs without clients (before they connect and after they left) and with them. */
    readonly rpsWithout: number;
    readonly rpsWith: number;
    readonly runsWithout: readonly number[];
    readonly runsWith: readonly number[];
  };
  readonly goals: readonly GoalResult[];
}

const USERS = 10;
const PASSWORD = 'realtime bench password';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Runs both scenarios. Throws when a request fails. */
export async function runRealtimeBench(options: RealtimeBenchOptions): Promise<RealtimeResult> {
  const fanOut: FanOutResult[] = [];
  const sqlite = await options.start('rowbase-rt', {});
  try {
    fanOut.push(await measureFanOut(options, [sqlite], 'sqlite'));
  } finally {
    await sqlite.stop();
  }
  if (options.postgresUrl) {
    const database = `rowbase_bench_rt_${Date.now()}`;
    const admin = new pg.Client({ connectionString: options.postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(options.postgresUrl);
    url.pathname = `/${database}`;
    const processes = await Promise.all([
      options.start('rowbase-rt-a', { DATABASE_URL: url.toString() }),
      options.start('rowbase-rt-b', { DATABASE_URL: url.toString() }),
    ]);
    try {
      fanOut.push(await measureFanOut(options, processes, 'postgres'));
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  }
  const idleServer = await options.start('rowbase-rt-idle', {}, options.pinning?.server);
  let idle: RealtimeResult['idle'];
  try {
    idle = await measureIdle(options, idleServer);
  } finally {
    await idleServer.stop();
  }
  const goals: GoalResult[] = fanOut.map((f) => {
    const limit = f.engine === 'sqlite' ? 50 : 100;
    return {
      text:
        `write-to-delivery p99 < ${limit} ms (${f.subscribers} subscribers, ${options.writesPerSecond} ` +
        `writes/s, ${f.engine}, ${f.processes} process${f.processes > 1 ? 'es' : ''})`,
      measured:
        `${formatMs(f.latency.p99)} ms (p50 ${formatMs(f.latency.p50)} ms; writes ` +
        `answered p50 ${formatMs(f.writeLatency.p50)} ms, p99 ${formatMs(f.writeLatency.p99)} ` +
        `ms; ${f.deliveries}/${f.expectedDeliveries} delivered; CPU: servers ` +
        `${f.serverCpuSeconds.toFixed(1)} s, readers ${f.readerCpuSeconds.toFixed(1)} s)`,
      met: f.latency.p99 < limit && f.deliveries === f.expectedDeliveries,
    };
  });
  goals.push(
    {
      text: `RSS growth with ${idle.clients} idle subscribed clients < 200 MiB`,
      measured: formatMiB(idle.rssAfter - idle.rssBefore),
      met: idle.rssAfter - idle.rssBefore < 200 * 2 ** 20,
    },
    {
      text: 'GET by id with them connected ≥ 0.9 × without',
      measured:
        `${(idle.rpsWith / idle.rpsWithout).toFixed(2)} (medians: ` +
        `${idle.rpsWith.toFixed(0)} vs ${idle.rpsWithout.toFixed(0)} req/s; ` +
        `runs with ${idle.runsWith.map((r) => r.toFixed(0)).join(', ')}; ` +
        `without ${idle.runsWithout.map((r) => r.toFixed(0)).join(', ')})`,
      met: idle.rpsWith >= 0.9 * idle.rpsWithout,
    },
  );
  return { fanOut, idle, goals };
}

interface Setup {
  readonly projectId: string;
  readonly admin: Record<string, string>;
  readonly pk: string;
  readonly users: { id: string; token: string }[];
}

async function setUp(options: RealtimeBenchOptions, url: string): Promise<Setup> {
  const projectId = `rt-${Date.now().toString(36)}`;
  const created = await expectStatus(
    201,
    url,
    'POST',
    '/v1/projects',
    { 'x-platform-key': options.platformKey },
    { name: 'Realtime bench', id: projectId },
  );
  const admin = { 'x-admin-key': created.body.data.admin_key as string };
  await expectStatus(201, url, 'PUT', `/p/${projectId}/v1/tables/users`, admin, { columns: [], auth_table: true });
  await expectStatus(201, url, 'PUT', `/p/${projectId}/v1/tables/feed`, admin, {
    columns: [
      { name: 'n', type: 'integer' },
      { name: 'owner', type: 'text' },
    ],
    rules: { list: '', view: '' },
  });
  await expectStatus(201, url, 'PUT', `/p/${projectId}/v1/tables/mine`, admin, {
    columns: [
      { name: 'n', type: 'integer' },
      { name: 'owner', type: 'text' },
    ],
    rules: { list: 'owner = @request.auth.id', view: 'owner = @request.auth.id' },
  });
  const users = [];
  for (let i = 0; i < USERS; i++) {
    const signup = await expectStatus(
      201,
      url,
      'POST',
      `/p/${projectId}/auth/signup`,
      {},
      { email: `rt${i}@example.com`, password: PASSWORD },
    );
    users.push({ id: signup.body.user.id as string, token: signup.body.token as string });
  }
  return { projectId, admin, pk: created.body.data.publishable_key as string, users };
}

/**
 * Opens a stream on a plain TCP socket, binds it with `headers` to `topics`, and calls `onData`
 * with each chunk of bytes after the `connect` event; resolves once bound. A raw socket rather
 * than node:http: a thousand readers share this process with the writer, and the HTTP client's
 * stream machinery per chunk cost as much CPU as the server under test. The bytes keep the
 * chunked-encoding size lines between the server's writes; readers look for whole SSE frames
 * only, which a write never splits.
 */
function subscribe(
  url: string,
  projectId: string,
  headers: Record<string, string>,
  topics: string[],
  onData: (chunk: Buffer) => void,
): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.write(
      `GET /p/${projectId}/realtime HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    let preamble = '';
    let bound = false;
    socket.on('data', (chunk: Buffer) => {
      if (bound) {
        onData(chunk);
        return;
      }
      preamble += chunk.toString('utf8');
      const connect = /data: (\{[^\n]*\})\n/.exec(preamble);
      if (!connect) return;
      bound = true;
      const clientId = JSON.parse(connect[1]!).client_id as string;
      expectStatus(200, url, 'POST', `/p/${projectId}/realtime`, headers, {
        client_id: clientId,
        subscriptions: topics,
      }).then(() => resolve(socket), reject);
    });
    socket.once('error', reject);
  });
}

const FRAME_END = Buffer.from('\n\n');
const N_KEY = Buffer.from('"n":');

async function measureFanOut(
  options: RealtimeBenchOptions,
  servers: readonly ServerProcess[],
  engine: 'sqlite' | 'postgres',
): Promise<FanOutResult> {
  const setup = await setUp(options, servers[0]!.url);
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  // One per stream: a frame may arrive split over two chunks, so only whole frames are read.
  // Bytes are scanned as they come (no text decoding, no regular expression): 1,000 readers
  // share this process with the writer, and their parsing must not be what delays either.
  const recorder = () => {
    let rest: Buffer | undefined;
    return (chunk: Buffer) => {
      const now = performance.now();
      const bytes = rest ? Buffer.concat([rest, chunk]) : chunk;
      const end = bytes.lastIndexOf(FRAME_END);
      rest = end < 0 ? bytes : end + 2 < bytes.length ? bytes.subarray(end + 2) : undefined;
      if (end < 0) return;
      for (let at = bytes.indexOf(N_KEY); at >= 0 && at < end; at = bytes.indexOf(N_KEY, at + N_KEY.length)) {
        let n = 0;
        let i = at + N_KEY.length;
        for (let digit = bytes[i]! - 48; digit >= 0 && digit <= 9; digit = bytes[++i]! - 48) n = n * 10 + digit;
        const sent = sentAt.get(n);
        if (sent !== undefined) latencies.push(now - sent);
      }
    };
  };
  const streams: net.Socket[] = [];
  const half = Math.floor(options.subscribers / 2);
  for (let i = 0; i < options.subscribers; i++) {
    const server = servers[i % servers.length]!;
    const owner = setup.users[i % USERS]!;
    // Half on the open table with the pk_ key, half on the owner-only table as a user.
    streams.push(
      await (i < half
        ? subscribe(server.url, setup.projectId, { 'x-api-key': setup.pk }, ['feed'], recorder())
        : subscribe(server.url, setup.projectId, { authorization: `Bearer ${owner.token}` }, ['mine'], recorder())),
    );
  }
  options.log(
    `  ${engine}: ${options.subscribers} subscribers on ${servers.length} ` +
      `process(es); writing ${options.writesPerSecond}/s for ${options.seconds} s`,
  );
  const total = Math.round(options.writesPerSecond * options.seconds);
  const cpuBefore = servers.reduce((sum, server) => sum + server.cpuSeconds(), 0);
  const readerBefore = process.cpuUsage();
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  const writeTimes: number[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / options.writesPerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const server = servers[n % servers.length]!;
    // Alternate tables: every write reaches the pk_ half (feed) or one user's share (mine).
    const table = n % 2 === 0 ? 'feed' : 'mine';
    const sent = performance.now();
    sentAt.set(n, sent);
    pending.push(
      post(server.url, `/p/${setup.projectId}/api/${table}`, setup.admin, {
        n,
        owner: setup.users[n % USERS]!.id,
      }).then(() => writeTimes.push(performance.now() - sent)),
    );
  }
  await Promise.all(pending);
  const feedWrites = Math.ceil(total / 2);
  // Each "mine" write reaches the subscribers bound to its owner.
  const boundTo = Array.from(
    { length: USERS },
    (_, u) =>
      Array.from({ length: options.subscribers }, (_, i) => i).filter((i) => i >= half && i % USERS === u).length,
  );
  let expected = feedWrites * half;
  for (let n = 1; n < total; n += 2) expected += boundTo[n % USERS]!;
  const deadline = Date.now() + 10_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const serverCpuSeconds = servers.reduce((sum, server) => sum + server.cpuSeconds(), 0) - cpuBefore;
  const readerCpu = process.cpuUsage(readerBefore);
  const readerCpuSeconds = (readerCpu.user + readerCpu.system) / 1e6;
  for (const stream of streams) stream.destroy();
  return {
    engine,
    processes: servers.length,
    subscribers: options.subscribers,
    writes: total,
    expectedDeliveries: Math.round(expected),
    deliveries: latencies.length,
    latency: summariseLatency(Float64Array.from(latencies)),
    writeLatency: summariseLatency(Float64Array.from(writeTimes)),
    serverCpuSeconds,
    readerCpuSeconds,
  };
}

function post(url: string, route: string, headers: Record<string, string>, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}${route}`,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 201 ? resolve() : reject(new Error(`POST ${route}: ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function measureIdle(options: RealtimeBenchOptions, server: ServerProcess): Promise<RealtimeResult['idle']> {
  const setup = await setUp(options, server.url);
  const row = await expectStatus(201, server.url, 'POST', `/p/${setup.projectId}/api/feed`, setup.admin, { n: 1 });
  const spec = (seconds: number) => ({
    url: server.url,
    connections: 10,
    durationSeconds: seconds,
    loader: options.loader,
    requests: [
      {
        method: 'GET' as const,
        path: `/p/${setup.projectId}/api/feed/${row.body.data.id}`,
        headers: { 'x-api-key': setup.pk },
      },
    ],
    ...(options.pinning && { loadCpus: options.pinning.load }),
  });
  // Three runs without clients, three with, three without again: single runs differ by more
  // than the effect measured, and the runs after the clients left catch a drift over time.
  const runs = async (count: number): Promise<number[]> => {
    const rps: number[] = [];
    for (let i = 0; i < count; i++) rps.push((await runLoad(spec(options.loadSeconds), options.scratchDir)).rps);
    return rps;
  };
  await runLoad(spec(1), options.scratchDir);
  const before = await runs(3);
  const rssBefore = server.rss();
  options.log(`  idle: opening ${options.idleClients} subscribed streams`);
  const streams: net.Socket[] = [];
  for (let i = 0; i < options.idleClients; i += 50) {
    const batch = Array.from({ length: Math.min(50, options.idleClients - i) }, () =>
      subscribe(server.url, setup.projectId, { 'x-api-key': setup.pk }, ['feed/none'], () => undefined),
    );
    streams.push(...(await Promise.all(batch)));
  }
  const rssAfter = server.rss();
  const withClients = await runs(3);
  for (const stream of streams) stream.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = await runs(3);
  const runsWithout = [...before, ...after];
  return {
    clients: options.idleClients,
    rssBefore,
    rssAfter,
    rpsWithout: spread(runsWithout).median,
    rpsWith: spread(withClients).median,
    runsWithout,
    runsWith: withClients,
  };
}
