/**
 * The real server as a child process (`node --import tsx src/main.ts serve`), for tests that
 * kill it, restart it or stop it with a signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const PROCESS_PLATFORM_KEY = 'rb_e2e_platform_key_0123456789abcdef';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/**
 * Starts the server over `dataDir` and waits until GET /health answers 200. `env.PORT` picks
 * the port (a restart on the address its clients know); otherwise a free one.
 * Throws (after killing the child) if it does not within `timeoutMs`.
 */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<ServerProcess> {
  const port = env.PORT !== undefined ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      PLATFORM_KEY: PROCESS_PLATFORM_KEY,
      RATE_LIMITS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gone) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url, output: () => output, exited };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not start within ${timeoutMs} ms:\n${output}`);
}

/** Sends a JSON request to a server process; returns status and parsed body. */
export async function call(
  url: string,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
