/**
 * Builds the service graph for a Config: the only place that picks a storage engine and
 * a password hasher. HTTP routes receive the result and never construct services.
 */
import { buildArgon2Hasher } from '../auth/argon2-hasher.js';
import type { Config } from '../config/config.js';
import { silentMailLog, StoredMailQueue, type MailLog, type MailQueue } from '../email/mail-queue.js';
import type { AccessTokenVerifier } from '../http/credentials.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { PasswordHasher } from '../lib/password-hasher.js';
import { loadPlatformKey, type PlatformKey } from '../projects/platform-key.js';
import { ProjectRegistry } from '../projects/project-registry.js';
import { buildSqliteEngine } from '../store/sqlite/sqlite-engine.js';
import type { StorageEngine } from '../store/types.js';
import { RowService } from '../tables/row-service.js';
import { SchemaService } from '../tables/schema-service.js';

export interface Services {
  readonly config: Config;
  readonly clock: Clock;
  readonly storage: StorageEngine;
  readonly registry: ProjectRegistry;
  readonly schemas: SchemaService;
  readonly rows: RowService;
  readonly platformKey: PlatformKey;
  readonly hasher: PasswordHasher;
  readonly tokens: AccessTokenVerifier | undefined;
  /** Where mail goes: queued durably, sent by the mail worker (SMTP) or kept as the outbox. */
  readonly mail: MailQueue;
}

/** Opens storage for the config. Throws when PostgreSQL is asked for before it is supported. */
export function buildStorage(config: Config): StorageEngine {
  if (config.databaseUrl) {
    throw new Error('DATABASE_URL (PostgreSQL) is not supported by this build yet; unset it to use SQLite under DATA_DIR.');
  }
  return buildSqliteEngine({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous, maxOpenProjects: config.maxOpenProjects });
}

/** What callers of buildServices may replace: the clock (tests) and the logger (the app's). */
export interface ServiceOptions {
  readonly clock?: Clock;
  readonly log?: MailLog;
}

/** Builds every service for a config; `clock` may be replaced in tests. */
export async function buildServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentMailLog;
  const storage = buildStorage(config);
  const hasher = buildArgon2Hasher();
  const schemas = new SchemaService(storage, clock);
  return {
    config,
    clock,
    storage,
    registry: new ProjectRegistry(storage, clock),
    schemas,
    rows: new RowService(schemas, hasher, clock),
    platformKey: await loadPlatformKey(storage.system, config.platformKey),
    hasher,
    tokens: undefined,
    mail: new StoredMailQueue(storage.system, { delivery: config.smtpUrl ? 'smtp' : 'outbox', defaultFrom: config.emailFrom, clock, log }),
  };
}
