/**
 * Runs a load with wrk (C, epoll; the Debian package) instead of autocannon: a JavaScript
 * load generator saturates before a fast server does, which pulls every ratio toward 1.
 * The requests rotate through bench/wrk/rotate.lua; wrk is pinned to its own cores with
 * taskset when the harness pins (bench/pinning.ts), and its own CPU use is sampled from /proc
 * so the report can show it had headroom.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult, LoadSpec } from './load-spec.js';
import { cpuSecondsOf } from './proc.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(BENCH_DIR, 'wrk', 'rotate.lua');
export const WRK = '/usr/bin/wrk';

/** True when wrk is installed where the harness looks for it. */
export function wrkAvailable(): boolean {
  return existsSync(WRK);
}

interface WrkOutput {
  requests: number;
  duration_us: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latency_us: { p50: number; p90: number; p99: number; max: number; mean: number };
}

/** One ready-made HTTP/1.1 request, as wrk sends it. */
function rawRequest(url: URL, request: LoadRequest): string {
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) {
    lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(request.body)}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n${request.body ?? ''}`;
}

/** The requests file rotate.lua reads: each request preceded by its length in bytes. */
function requestsFile(spec: LoadSpec, file: string): void {
  const url = new URL(spec.url);
  const parts: Buffer[] = [];
  for (const request of spec.requests) {
    const bytes = Buffer.from(rawRequest(url, request));
    parts.push(Buffer.from(`${bytes.length}\n`), bytes);
  }
  writeFileSync(file, Buffer.concat(parts));
}

/** Sends the requests one by one until one is not 2xx: says why a run had failures. */
async function findFailure(spec: LoadSpec): Promise<LoadResult['firstFailure']> {
  for (const request of spec.requests.slice(0, 200)) {
    try {
      const response = await fetch(new URL(request.path, spec.url), {
        method: request.method,
        headers: { ...request.headers, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
        ...(request.body !== undefined && { body: request.body }),
      });
      const body = await response.text();
      if (response.status < 200 || response.status > 299) return { status: response.status, body: body.slice(0, 500) };
    } catch (error) {
      return { status: 0, body: String(error) };
    }
  }
  return undefined;
}

let fileCounter = 0;

/** Runs `spec` with wrk (`-t1`, on `spec.loadCpus` if set) and returns what it measured. Throws when wrk fails. */
export async function runWrk(spec: LoadSpec, scratchDir: string): Promise<LoadResult> {
  const file = path.join(scratchDir, `wrk-${process.pid}-${++fileCounter}.txt`);
  requestsFile(spec, file);
  const threads = Math.max(1, Math.min(spec.threads ?? 1, spec.connections));
  // wrk takes whole seconds only.
  const wrkArgs = [
    `-t${threads}`,
    `-c${spec.connections}`,
    `-d${Math.max(1, Math.round(spec.durationSeconds))}s`,
    `--timeout`,
    `${spec.timeoutSeconds ?? 10}s`,
    '-s',
    SCRIPT,
    spec.url,
    '--',
    file,
  ];
  const [command, args] = spec.loadCpus ? ['taskset', ['-c', spec.loadCpus, WRK, ...wrkArgs]] : [WRK, wrkArgs];
  const child = spawn(command, args as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
  const started = performance.now();
  // wrk's CPU use, sampled until it exits (taskset execs wrk in the same process).
  let cpu = 0;
  let cpuAt = started;
  const sampler = setInterval(() => {
    const seconds = child.pid === undefined ? 0 : cpuSecondsOf(child.pid);
    if (seconds > 0) {
      cpu = seconds;
      cpuAt = performance.now();
    }
  }, 100);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${stderr}${stdout}`);
  const out = JSON.parse(line) as WrkOutput;
  const seconds = out.duration_us / 1e6;
  const errors = out.errors.connect + out.errors.read + out.errors.write + out.errors.timeout;
  const non2xx = out.errors.status;
  const ms = (us: number) => us / 1000;
  const firstFailure = errors + non2xx > 0 ? await findFailure(spec) : undefined;
  return {
    requests: out.requests,
    seconds,
    rps: seconds > 0 ? out.requests / seconds : 0,
    latency: {
      p50: ms(out.latency_us.p50),
      p90: ms(out.latency_us.p90),
      p99: ms(out.latency_us.p99),
      max: ms(out.latency_us.max),
      mean: ms(out.latency_us.mean),
    },
    errors,
    non2xx,
    loader: 'wrk',
    loaderCpu: cpuAt > started ? cpu / ((cpuAt - started) / 1000) : 0,
    ...(firstFailure && { firstFailure }),
  };
}
