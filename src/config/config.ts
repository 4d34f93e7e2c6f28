/**
 * Configuration: environment variables and CLI flags folded into one frozen, typed Config.
 * A flag wins over its environment variable; both win over the default.
 */
import path from 'node:path';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://...` switches storage to PostgreSQL; undefined means SQLite under dataDir. */
  readonly databaseUrl: string | undefined;
  /** Base of links in emails; never derived from request headers. */
  readonly publicUrl: string;
  readonly platformKey: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly emailFrom: string;
  readonly logLevel: string;
  /** `pretty`: one readable line per entry; `json`: pino's lines; `auto`: pretty on a terminal. */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  /** `full` (default): a 2xx write survives power loss. `normal`: faster, may lose the last commits. */
  readonly sqliteSynchronous: 'full' | 'normal';
  readonly rateLimits: boolean;
  /** Proxies whose X-Forwarded-For is believed (comma-separated addresses/CIDRs), or undefined. */
  readonly trustProxy: string | undefined;
  readonly redisUrl: string | undefined;
  /** How many project databases stay open at once (SQLite). */
  readonly maxOpenProjects: number;
  /** Memory for expanded rows kept between requests (SQLite), in MiB; 0 keeps none. */
  readonly expandCacheMb: number;
  /** PostgreSQL: the longest one statement may run, in milliseconds (0: no limit). */
  readonly pgStatementTimeoutMs: number;
  /** PostgreSQL: the longest a request waits for a pooled connection (or to open one), in milliseconds. */
  readonly pgPoolTimeoutMs: number;
}

/** One setting: its environment variable, its flag, and what it means (for --help). */
export interface SettingSpec {
  readonly key: keyof Config;
  readonly env: string;
  readonly flag: string;
  readonly help: string;
}

export const SETTINGS: readonly SettingSpec[] = [
  { key: 'host', env: 'HOST', flag: '--host', help: 'address to listen on (default 127.0.0.1)' },
  { key: 'port', env: 'PORT', flag: '--port', help: 'port to listen on (default 8080)' },
  { key: 'dataDir', env: 'DATA_DIR', flag: '--data-dir', help: 'where SQLite files live (default ./data)' },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: '--database-url',
    help: 'postgres://... to use PostgreSQL instead of SQLite',
  },
  {
    key: 'publicUrl',
    env: 'PUBLIC_URL',
    flag: '--public-url',
    help: 'base of links in emails (default http://HOST:PORT)',
  },
  {
    key: 'platformKey',
    env: 'PLATFORM_KEY',
    flag: '--platform-key',
    help: 'key for /v1/projects (generated on first start if unset)',
  },
  {
    key: 'smtpUrl',
    env: 'SMTP_URL',
    flag: '--smtp-url',
    help: 'smtp://user:pass@host:port; unset: mail goes to the project outbox',
  },
  {
    key: 'emailFrom',
    env: 'EMAIL_FROM',
    flag: '--email-from',
    help: 'default From address (default Rowbase <no-reply@localhost>)',
  },
  { key: 'logLevel', env: 'LOG_LEVEL', flag: '--log-level', help: 'fatal|error|warn|info|debug|trace (default info)' },
  {
    key: 'logFormat',
    env: 'LOG_FORMAT',
    flag: '--log-format',
    help: 'pretty (readable lines) or json (default: pretty when stdout is a terminal, else json)',
  },
  {
    key: 'sqliteSynchronous',
    env: 'SQLITE_SYNCHRONOUS',
    flag: '--sqlite-synchronous',
    help: 'full (default, durable) or normal (faster, may lose the last commits on power loss)',
  },
  { key: 'rateLimits', env: 'RATE_LIMITS', flag: '--rate-limits', help: 'on (default) or off (test rigs only)' },
  {
    key: 'trustProxy',
    env: 'TRUST_PROXY',
    flag: '--trust-proxy',
    help: 'proxies whose X-Forwarded-For is believed (comma-separated IPs/CIDRs)',
  },
  {
    key: 'redisUrl',
    env: 'REDIS_URL',
    flag: '--redis-url',
    help: 'redis://... for shared rate limits across processes',
  },
  {
    key: 'maxOpenProjects',
    env: 'MAX_OPEN_PROJECTS',
    flag: '--max-open-projects',
    help: 'SQLite project files kept open at once (default 256)',
  },
  {
    key: 'expandCacheMb',
    env: 'EXPAND_CACHE_MB',
    flag: '--expand-cache-mb',
    help: 'MiB for expanded rows kept between requests until the next write (SQLite; default 32; 0: none)',
  },
  {
    key: 'pgStatementTimeoutMs',
    env: 'PG_STATEMENT_TIMEOUT_MS',
    flag: '--pg-statement-timeout-ms',
    help: 'PostgreSQL: longest a statement may run, in ms, then 503 (default 30000; 0: no limit)',
  },
  {
    key: 'pgPoolTimeoutMs',
    env: 'PG_POOL_TIMEOUT_MS',
    flag: '--pg-pool-timeout-ms',
    help: 'PostgreSQL: longest wait for a pooled connection, in ms, then 503 (default 5000)',
  },
];

/** The shortest PLATFORM_KEY accepted: shorter keys are refused at start. */
export const MIN_PLATFORM_KEY_LENGTH = 32;

/** Thrown for a setting that cannot be understood; the CLI prints it and exits 2. */
export class ConfigError extends Error {}

/**
 * Builds the Config from environment variables and `--flag value` / `--flag=value` pairs.
 * Throws ConfigError for malformed values.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string>> = {},
): Config {
  const raw = (spec: SettingSpec): string | undefined => {
    const value = flags[spec.flag.slice(2)] ?? env[spec.env];
    return value === undefined || value === '' ? undefined : value;
  };
  const get = (key: keyof Config): string | undefined => raw(SETTINGS.find((s) => s.key === key)!);

  const host = get('host') ?? '127.0.0.1';
  const port = parseInteger(get('port') ?? '8080', 'PORT', 0, 65535);
  const synchronous = (get('sqliteSynchronous') ?? 'full').toLowerCase();
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigError(`SQLITE_SYNCHRONOUS must be "full" or "normal", not "${synchronous}".`);
  }
  const rateLimits = (get('rateLimits') ?? 'on').toLowerCase();
  if (rateLimits !== 'on' && rateLimits !== 'off') {
    throw new ConfigError(`RATE_LIMITS must be "on" or "off", not "${rateLimits}".`);
  }
  const logFormat = (get('logFormat') ?? 'auto').toLowerCase();
  if (logFormat !== 'auto' && logFormat !== 'pretty' && logFormat !== 'json') {
    throw new ConfigError(
      `LOG_FORMAT must be "pretty" or "json" (or unset: pretty on a terminal), not "${logFormat}".`,
    );
  }
  const databaseUrl = get('databaseUrl');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// (leave it unset for SQLite).');
  }
  const publicUrl = (get('publicUrl') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL such as https://api.example.com, not "${publicUrl}".`);
  }

  const platformKey = get('platformKey');
  if (platformKey !== undefined && platformKey.length < MIN_PLATFORM_KEY_LENGTH) {
    // A short key can be guessed; it guards the creation and deletion of every project.
    throw new ConfigError(
      `PLATFORM_KEY must be at least ${MIN_PLATFORM_KEY_LENGTH} characters; this one has ${platformKey.length}. ` +
        `Generate one with: node -e "console.log('rb_' + require('crypto').randomBytes(30).toString('base64url'))" ` +
        '(or leave PLATFORM_KEY unset and the server generates one on its first start).',
    );
  }

  return Object.freeze({
    host,
    port,
    dataDir: path.resolve(get('dataDir') ?? './data'),
    databaseUrl,
    publicUrl,
    platformKey,
    smtpUrl: get('smtpUrl'),
    emailFrom: get('emailFrom') ?? 'Rowbase <no-reply@localhost>',
    logLevel: get('logLevel') ?? 'info',
    logFormat,
    sqliteSynchronous: synchronous,
    rateLimits: rateLimits === 'on',
    trustProxy: get('trustProxy'),
    redisUrl: get('redisUrl'),
    maxOpenProjects: parseInteger(get('maxOpenProjects') ?? '256', 'MAX_OPEN_PROJECTS', 1, 100_000),
    expandCacheMb: parseInteger(get('expandCacheMb') ?? '32', 'EXPAND_CACHE_MB', 0, 65_536),
    pgStatementTimeoutMs: parseInteger(
      get('pgStatementTimeoutMs') ?? '30000',
      'PG_STATEMENT_TIMEOUT_MS',
      0,
      86_400_000,
    ),
    pgPoolTimeoutMs: parseInteger(get('pgPoolTimeoutMs') ?? '5000', 'PG_POOL_TIMEOUT_MS', 100, 600_000),
  });
}

function parseInteger(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${value}".`);
  }
  return n;
}
