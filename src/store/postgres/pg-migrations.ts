/**
 * Internal tables on PostgreSQL: the system schema `rowbase` and one schema per project, with
 * the same tables and columns as `sqlite/sqlite-migrations.ts` (timestamps of internal tables
 * stay ISO text, as their column descriptors say). Numbered steps per schema, tracked in the
 * schema's `_rb_migrations` table and run under an advisory lock, so that several processes
 * starting at once migrate each schema exactly once. Append new steps; never edit applied ones.
 *
 * Triggers send `NOTIFY rowbase_changes, '<schema>'` when keys, settings, projects or table
 * definitions change; `pg-change-listener.ts` turns them into `externalChangeVersion()`.
 */
import { quoteIdent } from '../sql-compiler.js';
import {
  CHANGE_VERSIONS,
  col,
  DASHBOARD_SESSIONS,
  EVENTS,
  EVENT_STATE,
  MAIL_QUEUE,
  MIGRATIONS,
  ONE_TIME_TOKENS,
  PLATFORM_SETTINGS,
  PROJECTS,
  PROJECT_KEYS,
  PROJECT_SETTINGS,
  RATE_LIMITS,
  SESSIONS,
  SPENT_REFRESH_TOKENS,
  TABLE_DEFINITIONS,
} from '../system-tables.js';
import type { QueryRunner } from './pg-ddl.js';

/** The schema holding projects, keys, settings, the platform key and the mail queue. */
export const SYSTEM_SCHEMA = 'rowbase';

/** The channel the change triggers notify on. */
export const CHANGE_CHANNEL = 'rowbase_changes';
/** The channel on which a project's event log announces new entries (payload: the schema). */
export const EVENT_CHANNEL = 'rowbase_events';

// First key of every advisory lock Rowbase takes (the second is the schema's hash): "rb".
const LOCK_CLASS = 0x7262;

const PROJECT_ID = /^[a-z0-9][a-z0-9-]{2,39}$/;

/** The schema of a project: `p_` plus the id with `-` as `_` (ids are validated; this is the second fence). */
export function projectSchema(projectId: string): string {
  if (!PROJECT_ID.test(projectId)) throw new Error(`unsafe project id ${JSON.stringify(projectId)}`);
  return `p_${projectId.replaceAll('-', '_')}`;
}

type Step = (schema: string) => string;

const T = (schema: string, table: string): string => `${quoteIdent(schema)}.${quoteIdent(table)}`;
const TEXT = 'text COLLATE "C"';

/** System schema steps. */
export const SYSTEM_MIGRATIONS: readonly Step[] = [
  (s) => `
   CREATE FUNCTION ${T(s, 'notify_change')}() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA);
     RETURN NULL;
   END $$;
   CREATE TABLE ${T(s, PROJECTS.table)} (
     id ${TEXT} PRIMARY KEY NOT NULL,
     name ${TEXT} NOT NULL,
     created_at ${TEXT} NOT NULL
   );
   CREATE TABLE ${T(s, PROJECT_KEYS.table)} (
     id ${TEXT} PRIMARY KEY NOT NULL,
     project_id ${TEXT} NOT NULL REFERENCES ${T(s, PROJECTS.table)}(id) ON DELETE CASCADE,
     type ${TEXT} NOT NULL,
     prefix ${TEXT} NOT NULL,
     hash ${TEXT} NOT NULL UNIQUE,
     created_at ${TEXT} NOT NULL,
     last_used_at ${TEXT},
     expires_at ${TEXT}
   );
   CREATE INDEX project_keys_project ON ${T(s, PROJECT_KEYS.table)} (project_id);
   CREATE TABLE ${T(s, PROJECT_SETTINGS.table)} (
     project_id ${TEXT} PRIMARY KEY NOT NULL REFERENCES ${T(s, PROJECTS.table)}(id) ON DELETE CASCADE,
     settings jsonb NOT NULL,
     jwt_secret ${TEXT} NOT NULL,
     jwt_rotated_at ${TEXT} NOT NULL
   );
   CREATE TABLE ${T(s, PLATFORM_SETTINGS.table)} (
     name ${TEXT} PRIMARY KEY NOT NULL,
     value ${TEXT} NOT NULL
   );
   CREATE TABLE ${T(s, MAIL_QUEUE.table)} (
     id ${TEXT} PRIMARY KEY NOT NULL,
     project_id ${TEXT} NOT NULL,
     recipient ${TEXT} NOT NULL,
     subject ${TEXT} NOT NULL,
     text_body ${TEXT} NOT NULL,
     html_body ${TEXT} NOT NULL,
     status ${TEXT} NOT NULL,
     attempts bigint NOT NULL,
     next_attempt_at ${TEXT} NOT NULL,
     locked_until ${TEXT},
     created_at ${TEXT} NOT NULL,
     sent_at ${TEXT},
     last_error ${TEXT}
   );
   CREATE INDEX mail_queue_due ON ${T(s, MAIL_QUEUE.table)} (status, next_attempt_at);
   CREATE INDEX mail_queue_project ON ${T(s, MAIL_QUEUE.table)} (project_id, created_at);
   CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${T(s, PROJECTS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(s, 'notify_change')}();
   CREATE TRIGGER project_settings_changed
     AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${T(s, PROJECT_SETTINGS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(s, 'notify_change')}();
   CREATE TRIGGER platform_settings_changed
     AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${T(s, PLATFORM_SETTINGS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(s, 'notify_change')}();
   CREATE TRIGGER project_keys_added_or_removed AFTER INSERT OR DELETE OR TRUNCATE ON ${T(s, PROJECT_KEYS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(s, 'notify_change')}();
   -- last_used_at is bookkeeping written once a minute per key: it must not empty every cache.
   CREATE TRIGGER project_keys_changed AFTER UPDATE ON ${T(s, PROJECT_KEYS.table)} FOR EACH ROW
     WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
     EXECUTE FUNCTION ${T(s, 'notify_change')}();`,
  // 2: the From address chosen at enqueue time (the project's email_from, else EMAIL_FROM).
  (s) => `ALTER TABLE ${T(s, MAIL_QUEUE.table)} ADD COLUMN sender ${TEXT};`,
  // 3: rate-limit windows shared by every process (pg-rate-limiter.ts). UNLOGGED: counters need
  // no crash safety (a crash resets them), and skipping the WAL keeps each hit cheap.
  (s) => `
   CREATE UNLOGGED TABLE ${T(s, RATE_LIMITS.table)} (
     key ${TEXT} PRIMARY KEY NOT NULL,
     count bigint NOT NULL,
     reset_at bigint NOT NULL,
     allowed boolean NOT NULL
   );
   CREATE INDEX rate_limits_reset ON ${T(s, RATE_LIMITS.table)} (reset_at);`,
  // 4: a committed change counter per schema, bumped by the same trigger that notifies. Caches
  // read it (pg-database.ts externalChangeVersion): a notification may reach another process
  // after that process already served the next request; the counter is in the database, so a
  // request that arrives after a commit always sees it.
  (s) => `
   CREATE TABLE ${T(s, CHANGE_VERSIONS.table)} (
     schema_name ${TEXT} PRIMARY KEY NOT NULL,
     version bigint NOT NULL
   );
   CREATE OR REPLACE FUNCTION ${T(s, 'notify_change')}() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO ${T(s, CHANGE_VERSIONS.table)} (schema_name, version) VALUES (TG_TABLE_SCHEMA, 1)
       ON CONFLICT (schema_name) DO UPDATE SET version = ${T(s, CHANGE_VERSIONS.table)}.version + 1;
     PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_SCHEMA);
     RETURN NULL;
   END $$;`,
  // 5: wakes the realtime readers of every process when a project's event log grows. Only a
  // wake-up: readers also poll the log, so a lost notification delays nothing for long.
  (s) => `
   CREATE OR REPLACE FUNCTION ${T(s, 'notify_event')}() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${EVENT_CHANNEL}', TG_TABLE_SCHEMA);
     RETURN NULL;
   END $$;`,
  // 6: dashboard sessions (src/projects/dashboard-tokens.ts), as SQLite's system step 3. No
  // change trigger: every use reads its row, so a sign-out on one process counts on all at once.
  (s) => `
   CREATE TABLE ${T(s, DASHBOARD_SESSIONS.table)} (
     id ${TEXT} PRIMARY KEY NOT NULL,
     secret_hash ${TEXT} NOT NULL,
     project_id ${TEXT} REFERENCES ${T(s, PROJECTS.table)}(id) ON DELETE CASCADE,
     key_id ${TEXT} REFERENCES ${T(s, PROJECT_KEYS.table)}(id) ON DELETE CASCADE,
     platform_key_fingerprint ${TEXT},
     created_at ${TEXT} NOT NULL,
     expires_at ${TEXT} NOT NULL,
     revoked_at ${TEXT}
   );
   CREATE INDEX dashboard_sessions_expires ON ${T(s, DASHBOARD_SESSIONS.table)} (expires_at);
   CREATE INDEX dashboard_sessions_project ON ${T(s, DASHBOARD_SESSIONS.table)} (project_id);
   CREATE INDEX dashboard_sessions_key ON ${T(s, DASHBOARD_SESSIONS.table)} (key_id);`,
];

/** Project schema steps (table definitions, sessions, one-time tokens). */
export const PROJECT_MIGRATIONS: readonly Step[] = [
  (s) => `
   CREATE TABLE ${T(s, TABLE_DEFINITIONS.table)} (
     name ${TEXT} PRIMARY KEY NOT NULL,
     definition jsonb NOT NULL,
     created_at ${TEXT} NOT NULL,
     updated_at ${TEXT} NOT NULL
   );
   CREATE TABLE ${T(s, SESSIONS.table)} (
     id ${TEXT} PRIMARY KEY NOT NULL,
     user_id ${TEXT} NOT NULL,
     refresh_hash ${TEXT} NOT NULL UNIQUE,
     previous_refresh_hash ${TEXT},
     previous_valid_until ${TEXT},
     created_at ${TEXT} NOT NULL,
     expires_at ${TEXT} NOT NULL,
     revoked_at ${TEXT}
   );
   CREATE INDEX _rb_sessions_user ON ${T(s, SESSIONS.table)} (user_id);
   CREATE INDEX _rb_sessions_previous ON ${T(s, SESSIONS.table)} (previous_refresh_hash);
   CREATE TABLE ${T(s, ONE_TIME_TOKENS.table)} (
     hash ${TEXT} PRIMARY KEY NOT NULL,
     kind ${TEXT} NOT NULL,
     user_id ${TEXT} NOT NULL,
     password_version bigint NOT NULL,
     created_at ${TEXT} NOT NULL,
     expires_at ${TEXT} NOT NULL,
     used_at ${TEXT}
   );
   CREATE INDEX _rb_one_time_tokens_user ON ${T(s, ONE_TIME_TOKENS.table)} (user_id, kind);
   CREATE TRIGGER _rb_tables_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${T(s, TABLE_DEFINITIONS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(SYSTEM_SCHEMA, 'notify_change')}();`,
  // 2: refresh tokens replaced by rotation, so a replay of any of them (not just the previous) is
  // caught; rows go with their session and once `expires_at` (the session's expiry when spent) passes.
  (s) => `
   CREATE TABLE ${T(s, SPENT_REFRESH_TOKENS.table)} (
     hash ${TEXT} PRIMARY KEY NOT NULL,
     session_id ${TEXT} NOT NULL,
     user_id ${TEXT} NOT NULL,
     spent_at ${TEXT} NOT NULL,
     expires_at ${TEXT} NOT NULL
   );
   CREATE INDEX _rb_spent_refresh_tokens_session ON ${T(s, SPENT_REFRESH_TOKENS.table)} (session_id);
   CREATE INDEX _rb_spent_refresh_tokens_user ON ${T(s, SPENT_REFRESH_TOKENS.table)} (user_id);
   CREATE INDEX _rb_spent_refresh_tokens_expires ON ${T(s, SPENT_REFRESH_TOKENS.table)} (expires_at);`,
  // 3: what GET /auth/sessions shows of a session: when it was last used (written at most once
  // a minute, src/auth/session-activity.ts) and the User-Agent that signed in.
  (s) => `
   ALTER TABLE ${T(s, SESSIONS.table)} ADD COLUMN last_used_at ${TEXT};
   ALTER TABLE ${T(s, SESSIONS.table)} ADD COLUMN user_agent ${TEXT};`,
  // 4: the realtime event log (src/changes/event-log.ts): numbers from a sequence, taken by the
  // last statement of each writing transaction; readers wait out gaps (docs/realtime.md).
  (s) => `
   CREATE TABLE ${T(s, EVENTS.table)} (
     seq bigserial PRIMARY KEY,
     created_at ${TEXT} NOT NULL,
     table_name ${TEXT} NOT NULL,
     action ${TEXT} NOT NULL,
     record text NOT NULL
   );
   CREATE INDEX _rb_events_created ON ${T(s, EVENTS.table)} (created_at);
   CREATE TABLE ${T(s, EVENT_STATE.table)} (
     id bigint PRIMARY KEY NOT NULL,
     last_seq bigint NOT NULL,
     trimmed_through bigint NOT NULL
   );
   INSERT INTO ${T(s, EVENT_STATE.table)} (id, last_seq, trimmed_through) VALUES (1, 0, 0);
   CREATE TRIGGER _rb_events_notify AFTER INSERT ON ${T(s, EVENTS.table)}
     FOR EACH STATEMENT EXECUTE FUNCTION ${T(SYSTEM_SCHEMA, 'notify_event')}();`,
];

/** Takes the advisory lock of a schema until the transaction ends (migrations, schema changes). */
export async function lockSchema(runner: QueryRunner, schema: string): Promise<void> {
  await runner.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
}

/** What `migrateSchema` does with a schema that does not exist yet. */
export interface MigrateOptions {
  /** Create it (else leave it missing and answer false). */
  readonly createIfMissing: boolean;
}

/**
 * Brings the schema up to the latest step, creating it first when missing if `createIfMissing`,
 * all in one transaction on `runner` (a dedicated client) under the schema's advisory lock.
 * Returns false when the schema does not exist and is not to be created.
 */
export async function migrateSchema(
  runner: QueryRunner,
  schema: string,
  steps: readonly Step[],
  { createIfMissing }: MigrateOptions,
): Promise<boolean> {
  await runner.query('BEGIN');
  try {
    await lockSchema(runner, schema);
    const exists = (await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
    if (!exists && !createIfMissing) {
      await runner.query('ROLLBACK');
      return false;
    }
    await runner.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    const versions = T(schema, MIGRATIONS.table);
    const applied = quoteIdent(col(MIGRATIONS, 'version').name);
    await runner.query(`CREATE TABLE IF NOT EXISTS ${versions} (${applied} integer NOT NULL)`);
    const row = (await runner.query(`SELECT max(${applied}) AS latest FROM ${versions}`)).rows[0] as {
      latest: number | null;
    };
    for (let version = row.latest ?? 0; version < steps.length; version++) {
      await runner.query(steps[version]!(schema));
      await runner.query(`INSERT INTO ${versions} (${applied}) VALUES ($1)`, [version + 1]);
    }
    await runner.query('COMMIT');
    return true;
  } catch (error) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
