/**
 * How the harness starts the two servers it compares: Rowbase built in dist/ (production
 * mode, logging at warn, loopback only) and the hand-written baseline.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerProcess } from './server-process.js';

/** The repository root (bench/..). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts `node dist/main.js serve` over `dataDir` on a free loopback port.
 * `seeding` starts it with SQLITE_SYNCHRONOUS=normal, for filling a data folder quickly.
 * RATE_LIMITS=off: the login scenarios send thousands of logins a minute from one address,
 * which the default limits would answer with 429; the benchmark measures the work, not the limiter.
 */
export function startRowbase(
  dataDir: string,
  platformKey: string,
  options: {
    nodeArgs?: readonly string[];
    seeding?: boolean;
    cpus?: string;
    env?: Readonly<Record<string, string>>;
    name?: string;
    dist?: string;
  } = {},
): Promise<ServerProcess> {
  return startServer({
    name: options.name ?? 'rowbase',
    cwd: ROOT,
    ...(options.cpus && { cpus: options.cpus }),
    args: [
      ...(options.nodeArgs ?? []),
      path.join(options.dist ? path.resolve(ROOT, options.dist) : path.join(ROOT, 'dist'), 'main.js'),
      'serve',
    ],
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      PLATFORM_KEY: platformKey,
      RATE_LIMITS: 'off',
      // Seeding is set-up, not measurement: it may skip the fsync per commit. Measured servers keep the default (full).
      ...(options.seeding && { SQLITE_SYNCHRONOUS: 'normal' }),
      ...options.env,
    },
  });
}

/**
 * Starts the baseline over a SQLite file holding the benchmark tables. With `auth` (a copy of
 * Rowbase's system.db and the project id), it reads the project's JWT secret there and answers
 * the signed-in scenarios; without it, those routes answer 401.
 */
export function startBaseline(
  dbFile: string,
  cpus?: string,
  auth?: { readonly systemDb: string; readonly project: string },
): Promise<ServerProcess> {
  return startServer({
    name: 'baseline',
    cwd: ROOT,
    ...(cpus && { cpus }),
    args: [
      '--import',
      'tsx',
      path.join(ROOT, 'bench', 'baseline', 'server.ts'),
      '--db',
      dbFile,
      ...(auth ? ['--system-db', auth.systemDb, '--project', auth.project] : []),
    ],
    env: { NODE_ENV: 'production' },
  });
}
