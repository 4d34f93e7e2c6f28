/**
 * A redis-server of a test's own (never a shared one), on a free port, as a child process the
 * test stops, starts and freezes by PID (outage tests). Nothing is persisted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { freePort } from './server-process.js';

export interface RedisProcess {
  readonly url: string;
  /** Starts redis-server (again) on the same port and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it (SIGTERM, then waits for the exit). */
  stop(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered. `resume` undoes it. */
  freeze(): void;
  resume(): void;
  /** A client of its own, for the test to look at the keys. */
  keys(pattern: string): Promise<string[]>;
}

/** Starts a redis-server on a free port. */
export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const ping = async (): Promise<boolean> => {
    const client = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      await client.close();
      return true;
    } catch {
      client.destroy();
      return false;
    }
  };
  const redis: RedisProcess = {
    url,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (await ping()) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server did not start on port ${port}`);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGCONT');
      running.kill('SIGTERM');
      await exited;
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async keys(pattern) {
      const client = createClient({ url, socket: { reconnectStrategy: false } });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return await client.keys(pattern);
      } finally {
        await client.close();
      }
    },
  };
  await redis.start();
  return redis;
}
