/**
 * A PostgreSQL server of a test's own, to stop and start under a running Rowbase (outage
 * tests). Never the shared server other tests use: a fresh cluster (`initdb`) in a temporary
 * folder, on a free port, its socket in that folder. initdb and pg_ctl refuse to run as root,
 * so they run as the `postgres` user (`runuser`) when the tests run as root.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin folder (Debian layout), or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** Starts the server and waits until it accepts connections (on `onPort` instead, to hide it from its clients). */
  start(onPort?: number): Promise<void>;
  /** The URL of the server when started on another port. */
  urlOn(onPort: number): string;
  /** Stops it: `fast` (clean, like a restart) or `immediate` (like a crash; recovered from WAL on start). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /**
   * Freezes the server (SIGSTOP to the postmaster and every backend): sockets stay open and
   * nothing answers, like a hung machine. `resume` undoes it.
   */
  freeze(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the server if it runs and removes its folder. Never throws. */
  destroy(): Promise<void>;
}

/** Creates (initdb) and starts a cluster on a free port. */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql/*/bin');
  const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-pgcluster-'));
  const dataDir = path.join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const exec = (file: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args]) : run(path.join(bin, file), args);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  const ctl = (args: string[]) => exec('pg_ctl', ['-D', dataDir, ...args]);
  let running = false;
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // a backend that exited meanwhile
    }
  };
  /**
   * Sends `signal` to the postmaster and its children (the pids are read afresh each time). The
   * postmaster is signalled first: once it is stopped it forks no new backend, so the children
   * listed afterwards are all there are (listed first, a backend forked meanwhile kept running).
   */
  const signalAll = async (name: NodeJS.Signals): Promise<void> => {
    const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
    signal(postmaster, name);
    const children = await run('pgrep', ['-P', String(postmaster)]).then(
      ({ stdout }) => stdout.split(/\s+/).filter(Boolean).map(Number),
      () => [],
    );
    for (const pid of children) signal(pid, name);
  };
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    urlOn: (onPort) => `postgres://postgres@127.0.0.1:${onPort}/postgres`,
    async start(onPort = port) {
      await ctl([
        '-o',
        `-p ${onPort} -k ${dir} -c listen_addresses=127.0.0.1`,
        '-l',
        path.join(dir, 'server.log'),
        '-w',
        '-t',
        '30',
        'start',
      ]);
      running = true;
    },
    async stop(mode = 'fast') {
      await ctl(['-m', mode, '-w', '-t', '30', 'stop']);
      running = false;
    },
    freeze: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    async destroy() {
      await signalAll('SIGCONT').catch(() => undefined);
      if (running) await ctl(['-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await exec('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
