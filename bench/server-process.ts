/**
 * Starts a server (Rowbase from dist/, or the baseline) as a child process, learns its port
 * from the line it prints, samples its memory from /proc, and stops it by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpuSecondsOf, statusField } from './proc.js';

/** A server process the harness started and must stop. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /** Current resident set size in bytes (VmRSS), or 0 once the process is gone. */
  rss(): number;
  /** Peak resident set size over the process's life so far in bytes (VmHWM). */
  peakRss(): number;
  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds(): number;
  /** Samples VmRSS every `intervalMs` until the returned function is called; it returns the peak seen. */
  sampleRss(intervalMs?: number): () => number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Working folder (where `--import tsx` is resolved from). */
  readonly cwd: string;
  /** CPUs to pin the process to (taskset -c list); unset: not pinned. */
  readonly cpus?: string;
  /** How long to wait for the "listening on http://..." line. */
  readonly startTimeoutMs?: number;
}

// Every child still running; stopped by PID if the harness exits early.
const running = new Map<number, ChildProcess>();

process.once('exit', () => {
  for (const pid of running.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * Spawns `node <args>` and waits until it prints `listening on http://host:port`.
 * Throws when it exits or stays silent past the timeout (with its output, to say why).
 */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  // taskset execs node in the same process, so the PID is the server's.
  const [command, args] = options.cpus
    ? ['taskset', ['-c', options.cpus, process.execPath, ...options.args]]
    : [process.execPath, [...options.args]];
  const child = spawn(command as string, args as string[], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start node`);
  running.set(pid, child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(pid);
      resolve();
    }),
  );

  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${options.name} did not start within ${options.startTimeoutMs ?? 20_000} ms:\n${output}`)),
      options.startTimeoutMs ?? 20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s;]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with code ${code} before listening:\n${output}`));
    });
  });
  // Keep draining output so a chatty server never blocks on a full pipe; warnings are shown.
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  child.stdout!.on('data', () => undefined);
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[${options.name}] ${chunk}`));

  return {
    name: options.name,
    pid,
    url,
    rss: () => statusField(pid, 'VmRSS'),
    peakRss: () => statusField(pid, 'VmHWM'),
    cpuSeconds: () => cpuSecondsOf(pid),
    sampleRss(intervalMs = 100) {
      let peak = statusField(pid, 'VmRSS');
      const timer = setInterval(() => {
        peak = Math.max(peak, statusField(pid, 'VmRSS'));
      }, intervalMs);
      return () => {
        clearInterval(timer);
        return Math.max(peak, statusField(pid, 'VmRSS'));
      };
    },
    async stop(graceMs = 10_000) {
      if (!running.has(pid)) return;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (running.has(pid)) process.kill(pid, 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
