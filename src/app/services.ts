/**
 * Builds the service graph for a Config: the only place that picks a storage engine and
 * a password hasher. HTTP routes receive the result and never construct services.
 */
import { buildArgon2Hasher, type Argon2Hasher, type Argon2HasherOptions } from '../auth/argon2-hasher.js';
import { buildAuthRowCredentials } from '../auth/auth-row-credentials.js';
import { buildAuthService, type AuthService } from '../auth/auth-service.js';
import { DataRateLimits } from '../auth/data-rate-limits.js';
import { buildMemoryRateLimiter } from '../auth/memory-rate-limiter.js';
import type { RateLimiter } from '../auth/rate-limiter.js';
import type { Config } from '../config/config.js';
import { silentMailLog, StoredMailQueue, type MailLog, type MailQueue } from '../email/mail-queue.js';
import { MailRequestWorker } from '../email/mail-request-worker.js';
import { MailWorker, type MailWorkerOptions } from '../email/mail-worker.js';
import type { SmtpTimeouts } from '../email/smtp-transport.js';
import type { AccessTokenVerifier } from '../http/credentials.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { DashboardTokens } from '../projects/dashboard-tokens.js';
import { loadPlatformKey, type PlatformKey } from '../projects/platform-key.js';
import { ProjectRegistry } from '../projects/project-registry.js';
import type { PostgresEngine } from '../store/postgres/pg-engine.js';
import { buildSqliteEngine } from '../store/sqlite/sqlite-engine.js';
import type { StorageEngine } from '../store/types.js';
import { RelatedRowCache } from '../tables/related-row-cache.js';
import { RowService } from '../tables/row-service.js';
import { RowBatch } from '../tables/row-batch.js';
import { SchemaService } from '../tables/schema-service.js';
import { ProjectDocuments } from '../openapi/project-documents.js';
import { RealtimeHub, type RealtimeLimits } from '../realtime/realtime-hub.js';

export interface Services {
  readonly config: Config;
  readonly clock: Clock;
  readonly storage: StorageEngine;
  readonly registry: ProjectRegistry;
  readonly schemas: SchemaService;
  readonly rows: RowService;
  /** Transactional batches of row writes over several tables (POST /p/{id}/api/batch). */
  readonly batch: RowBatch;
  readonly platformKey: PlatformKey;
  /** Dashboard tokens: keys exchanged for short-lived, revocable tokens (contract §12). */
  readonly dashboardTokens: DashboardTokens;
  /** argon2id on its own low-priority threads; `close` stops them. */
  readonly hasher: Argon2Hasher;
  readonly tokens: AccessTokenVerifier | undefined;
  /** The auth flows (signup, login, passwords, verification) and their rate limits. */
  readonly auth: AuthService;
  /** Counters behind the auth rate limits (in memory; shared implementations in issue 4). */
  readonly rateLimiter: RateLimiter;
  /** The data API's rate limits (`data_rate_limits`), on the same counters as the auth limits. */
  readonly dataRateLimits: DataRateLimits;
  /** Where mail goes: queued durably, sent by the mail worker (SMTP) or kept as the outbox. */
  readonly mail: MailQueue;
  /** Sends queued mail over SMTP_URL; undefined without SMTP_URL (mail stays in the outbox). */
  readonly mailWorker: MailWorker | undefined;
  /** Resolves queued mail requests (forgot-password) to mails or nothing, in either mode. */
  readonly mailRequests: MailRequestWorker;
  /** Each project's OpenAPI document and type declarations, built once per schema version. */
  readonly openapi: ProjectDocuments;
  /** Realtime streams of this process; told about every committed write. */
  readonly realtime: RealtimeHub;
}

/**
 * Opens storage for the config: PostgreSQL for `DATABASE_URL=postgres://...`, else SQLite
 * files under DATA_DIR (taken exclusively with `lockAs`). Throws StorageStartError (saying what to do)
 * when PostgreSQL cannot be opened, DataDirInUseError when another process holds the data folder.
 */
export async function buildStorage(
  config: Config,
  log: MailLog = silentMailLog,
  lockAs?: string,
): Promise<StorageEngine> {
  if (config.databaseUrl) {
    // Loaded only when used (as are Redis and nodemailer below): a SQLite server starts without them.
    const { buildPostgresEngine } = await import('../store/postgres/pg-engine.js');
    return buildPostgresEngine({
      url: config.databaseUrl,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      poolTimeoutMs: config.pgPoolTimeoutMs,
      onError: (error) => log.warn({ err: error }, 'PostgreSQL connection error'),
    });
  }
  return buildSqliteEngine({
    dataDir: config.dataDir,
    synchronous: config.sqliteSynchronous,
    maxOpenProjects: config.maxOpenProjects,
    ...(lockAs !== undefined && { lockAs }),
  });
}

/**
 * The counters behind the auth rate limits: Redis when REDIS_URL is set, else the database
 * when several processes may share it (PostgreSQL), else memory (one SQLite process).
 */
export async function buildRateLimiter(
  config: Config,
  storage: StorageEngine,
  clock: Clock,
  log: MailLog = silentMailLog,
): Promise<RateLimiter> {
  if (config.redisUrl) {
    const { buildRedisRateLimiter } = await import('../store/redis/redis-rate-limiter.js');
    // Fail open to per-process counting while Redis is down (docs/deploy.md says why).
    return buildRedisRateLimiter({
      url: config.redisUrl,
      clock,
      fallback: buildMemoryRateLimiter({ clock }),
      onError: (error) => log.warn({ err: error }, 'Redis connection error'),
      onFallbackStarted: (cause) =>
        log.error(
          { err: cause },
          'Redis does not answer: rate limits are counted in this process only until it is back',
        ),
      onFallbackEnded: () => log.warn({}, 'Redis answers again: rate limits are shared again'),
    });
  }
  if (typeof (storage as Partial<PostgresEngine>).buildRateLimiter === 'function')
    return (storage as PostgresEngine).buildRateLimiter(clock);
  return buildMemoryRateLimiter({ clock });
}

/** The logger services write to: the mail queue's levels, and debug where a logger has it (the app's). */
export type ServiceLog = MailLog & { debug?(fields: object, message: string): void };

/** What callers of buildServices may replace: the clock (tests) and the logger (the app's). */
export interface ServiceOptions {
  readonly clock?: Clock;
  readonly log?: ServiceLog;
  /** Mail worker tunables (poll interval, backoff...); tests shorten them. */
  readonly mailWorker?: Partial<MailWorkerOptions>;
  /** SMTP timeouts; tests shorten them. */
  readonly smtpTimeouts?: Partial<SmtpTimeouts>;
  /** Password-hasher slots and wait queue; tests shrink the queue. */
  readonly hasher?: Argon2HasherOptions;
  /**
   * Take a SQLite data folder exclusively for this command ("rowbase serve", "rowbase import"...)
   * until storage closes; throws DataDirInUseError when another process holds it. Unset: no lock.
   */
  readonly lockDataDirAs?: string;
  /** Realtime bounds (client limit, buffer, poll and keep intervals); tests shrink them. */
  readonly realtime?: Partial<RealtimeLimits>;
}

/** Builds every service for a config; `clock` may be replaced in tests. */
export async function buildServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const log: ServiceLog = options.log ?? silentMailLog;
  const storage = await buildStorage(config, log, options.lockDataDirAs);
  const hasher = buildArgon2Hasher(options.hasher);
  const schemas = new SchemaService(storage, clock);
  let registryRef: ProjectRegistry | undefined;
  const realtime = new RealtimeHub({
    schemas,
    clock,
    projectState: async (id) => registryRef?.find(id),
    ...(storage.eventWakeups && { wakeups: storage.eventWakeups }),
    log: {
      warn: (object, message) => log.warn(object, message),
      debug: (object, message) => log.debug?.(object, message),
    },
    ...(options.realtime && { limits: options.realtime }),
  });
  const rowCredentials = buildAuthRowCredentials(hasher);
  const rows = new RowService({
    schemas,
    credentials: rowCredentials,
    clock,
    feed: realtime,
    related: new RelatedRowCache(config.expandCacheMb * 1024 * 1024),
  });
  const batch = new RowBatch({ schemas, creates: rows, credentials: rowCredentials, clock, feed: realtime });
  // The queue wakes the request worker, which needs the auth service built below.
  let wakeRequests = () => {};
  const mail = await buildMail(config, storage, clock, log, options, () => wakeRequests());
  const rateLimiter = await buildRateLimiter(config, storage, clock, log);
  const auth = buildAuthService({
    schemas,
    rows,
    hasher,
    clock,
    mail: mail.mail,
    rateLimiter,
    rateLimitsEnabled: config.rateLimits,
    publicUrl: config.publicUrl,
  });
  const platformKey = await loadPlatformKey(storage.system, config.platformKey);
  const registry = new ProjectRegistry(storage, clock, platformKey);
  registryRef = registry;
  const mailRequests = new MailRequestWorker(
    storage.system,
    async (request) => {
      const state = await registry.find(request.projectId);
      return state && auth.resolveMailRequest(state, request);
    },
    log,
    { delivery: config.smtpUrl ? 'smtp' : 'outbox' },
    () => mail.mailWorker?.wake(),
  );
  wakeRequests = () => mailRequests.wake();
  return {
    config,
    clock,
    storage,
    registry,
    schemas,
    rows,
    batch,
    platformKey,
    dashboardTokens: new DashboardTokens(storage.system, clock, platformKey.fingerprint),
    hasher,
    tokens: auth.tokens,
    auth,
    rateLimiter,
    dataRateLimits: new DataRateLimits(rateLimiter, { enabled: config.rateLimits }),
    ...mail,
    mailRequests,
    openapi: new ProjectDocuments(schemas, config.publicUrl),
    realtime,
  };
}

/** SMTP_URL set: a queue whose rows the worker sends. Unset: a queue that is the outbox. */
async function buildMail(
  config: Config,
  storage: StorageEngine,
  clock: Clock,
  log: MailLog,
  options: ServiceOptions,
  onRequested: () => void,
): Promise<Pick<Services, 'mail' | 'mailWorker'>> {
  const defaultFrom = config.emailFrom;
  if (!config.smtpUrl) {
    return {
      mail: new StoredMailQueue(storage.system, { delivery: 'outbox', defaultFrom, clock, log, onRequested }),
      mailWorker: undefined,
    };
  }
  const { buildSmtpTransport, DEFAULT_SMTP_TIMEOUTS } = await import('../email/smtp-transport.js');
  const transport = buildSmtpTransport(config.smtpUrl, { ...DEFAULT_SMTP_TIMEOUTS, ...options.smtpTimeouts });
  const worker = new MailWorker(storage.system, transport, log, options.mailWorker);
  const mail = new StoredMailQueue(storage.system, {
    delivery: 'smtp',
    defaultFrom,
    clock,
    log,
    onEnqueued: () => worker.wake(),
    onRequested,
  });
  return { mail, mailWorker: worker };
}
