/**
 * Runs a load with wrk (bench/wrk-load.ts) or in a separate autocannon load-worker process,
 * and returns what it measured.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load-spec.js';
import { runWrk } from './wrk-load.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(BENCH_DIR, 'load-worker.ts');

let specCounter = 0;

/**
 * Runs `spec` from a new process (wrk when `spec.loader` says so). `scratchDir` holds the spec file (specs with 10,000
 * requests are too long for a command line). Throws when the worker fails.
 */
export async function runLoad(spec: LoadSpec, scratchDir: string): Promise<LoadResult> {
  if (spec.loader === 'wrk') return runWrk(spec, scratchDir);
  const file = path.join(scratchDir, `load-${process.pid}-${++specCounter}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file], {
    cwd: path.dirname(BENCH_DIR),
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = stdout.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    throw new Error(`load worker failed (exit ${code}):\n${stderr}${stdout}`);
  }
  return JSON.parse(line) as LoadResult;
}
