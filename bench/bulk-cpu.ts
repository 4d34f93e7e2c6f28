/**
 * CPU per bulk create, measured in the server process, for builds compared on a busy machine:
 * wall-clock req/s moves with whatever else runs, the CPU time a request costs much less.
 *
 *   node --import tsx bench/bulk-cpu.ts --dist dist --dist /tmp/b-REV/dist [--requests 40] [--rounds 6]
 *   node --import tsx bench/bulk-cpu.ts --dist dist --cpu-prof /tmp/prof
 *     (also writes a V8 CPU profile per server; the profiler inflates the figures)
 *
 * Each `--dist` folder (a `tsc -p tsconfig.build.json` output) is started as its own server over
 * a fresh data folder with the benchmark's `inbox` table (bench/schema.ts). After a warm-up, each
 * round sends `--requests` bulk requests of `--rows` rows, one at a time, to each server in turn
 * (the order rotates by round), and reads the server's CPU time (every thread, nanoseconds, from
 * /proc/PID/task/TID/schedstat) around them. It prints µs of server CPU per request: the median
 * of the rounds with their range, and each build's median over the first one's. Every answer must
 * be 201 with as many rows as sent. Servers run with Rowbase's default durability (a WAL fsync
 * per commit, on a thread-pool thread, counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { expectStatus } from './http-client.js';
import { cpuNanoseconds } from './proc.js';
import { INBOX, itemRow } from './schema.js';
import type { ServerProcess } from './server-process.js';
import { startRowbase } from './servers.js';
import { spread } from './stats.js';

const PLATFORM_KEY = 'bulk-cpu-platform-key-0123456789abcdef';
const PROJECT = 'bench';

interface Target {
  readonly dist: string;
  readonly dataDir: string;
  readonly server: ServerProcess;
  readonly headers: Record<string, string>;
  readonly perRequestUs: number[];
}

async function startTarget(dist: string, index: number, profileDir: string | undefined): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-bulk-cpu-'));
  let server: ServerProcess | undefined;
  try {
    server = await startRowbase(dataDir, PLATFORM_KEY, {
      dist,
      name: `build ${index + 1}`,
      ...(profileDir && { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] }),
    });
    const project = await expectStatus(
      201,
      server.url,
      'POST',
      '/v1/projects',
      { 'x-platform-key': PLATFORM_KEY },
      { name: 'Bulk CPU', id: PROJECT },
    );
    const admin = { 'x-admin-key': project.body.data.admin_key as string };
    await expectStatus(201, server.url, 'PUT', `/p/${PROJECT}/v1/tables/${INBOX.name}`, admin, INBOX.definition);
    // The scenario's caller: the publishable key, under the table's open create rule.
    const headers = { 'x-api-key': project.body.data.publishable_key as string, 'content-type': 'application/json' };
    return { dist, dataDir, server, headers, perRequestUs: [] };
  } catch (error) {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Sends `count` bulk requests one after another; throws unless each is 201 with every row. */
async function sendBulks(target: Target, body: string, rows: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${target.server.url}/p/${PROJECT}/api/${INBOX.name}/bulk`, {
      method: 'POST',
      headers: target.headers,
      body,
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`${target.dist}: ${response.status} ${text.slice(0, 300)}`);
    const created = (JSON.parse(text) as { data: unknown[] }).data.length;
    if (created !== rows) throw new Error(`${target.dist}: ${created} rows answered, ${rows} sent`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string', multiple: true },
      requests: { type: 'string', default: '40' },
      rounds: { type: 'string', default: '6' },
      warmup: { type: 'string', default: '30' },
      rows: { type: 'string', default: '1000' },
      'cpu-prof': { type: 'string' },
    },
  });
  const dists = values.dist ?? ['dist'];
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  const rows = Number(values.rows);
  const body = JSON.stringify(Array.from({ length: rows }, (_, n) => itemRow(n)));

  const targets: Target[] = [];
  try {
    for (const [index, dist] of dists.entries()) targets.push(await startTarget(dist, index, values['cpu-prof']));
    for (const target of targets) await sendBulks(target, body, rows, Number(values.warmup));
    for (let round = 0; round < rounds; round++) {
      const line: string[] = [];
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(round + k) % targets.length]!;
        const before = cpuNanoseconds(target.server.pid);
        await sendBulks(target, body, rows, requests);
        const us = (cpuNanoseconds(target.server.pid) - before) / 1000 / requests;
        target.perRequestUs.push(us);
      }
      for (const target of targets) line.push(`${target.perRequestUs.at(-1)!.toFixed(0).padStart(6)} µs`);
      console.log(`round ${round + 1}: ${line.join('  ')}`);
    }
    console.log(`\nServer CPU per bulk request of ${rows} rows (${rounds} rounds of ${requests}; median, range):`);
    const first = spread(targets[0]!.perRequestUs).median;
    for (const target of targets) {
      const s = spread(target.perRequestUs);
      console.log(
        `  ${target.dist.padEnd(28)} ${(s.median / 1000).toFixed(2)} ms ` +
          `(${(s.min / 1000).toFixed(2)}–${(s.max / 1000).toFixed(2)})  ${(s.median / first).toFixed(3)} × the first`,
      );
    }
  } finally {
    for (const target of targets) {
      await target.server.stop();
      rmSync(target.dataDir, { recursive: true, force: true });
    }
  }
}

await main();
