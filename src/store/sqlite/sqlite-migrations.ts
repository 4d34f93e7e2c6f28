/**
 * Internal tables of the system database and of every project database, as numbered
 * migrations tracked in `PRAGMA user_version`. Append new steps; never edit applied ones.
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  DASHBOARD_SESSIONS,
  EVENTS,
  EVENT_STATE,
  MAIL_QUEUE,
  ONE_TIME_TOKENS,
  PLATFORM_SETTINGS,
  PROJECTS,
  PROJECT_KEYS,
  PROJECT_SETTINGS,
  SESSIONS,
  SPENT_REFRESH_TOKENS,
  TABLE_DEFINITIONS,
} from '../system-tables.js';

/** System database: projects, hashed keys, settings, the platform key hash, the mail queue, dashboard sessions. */
export const SYSTEM_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${PROJECTS.table} (
     id TEXT PRIMARY KEY NOT NULL,
     name TEXT NOT NULL,
     created_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE ${PROJECT_KEYS.table} (
     id TEXT PRIMARY KEY NOT NULL,
     project_id TEXT NOT NULL REFERENCES ${PROJECTS.table}(id) ON DELETE CASCADE,
     type TEXT NOT NULL,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     last_used_at TEXT,
     expires_at TEXT
   ) STRICT;
   CREATE INDEX project_keys_project ON ${PROJECT_KEYS.table} (project_id);
   CREATE TABLE ${PROJECT_SETTINGS.table} (
     project_id TEXT PRIMARY KEY NOT NULL REFERENCES ${PROJECTS.table}(id) ON DELETE CASCADE,
     settings TEXT NOT NULL,
     jwt_secret TEXT NOT NULL,
     jwt_rotated_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE ${PLATFORM_SETTINGS.table} (
     name TEXT PRIMARY KEY NOT NULL,
     value TEXT NOT NULL
   ) STRICT;
   CREATE TABLE ${MAIL_QUEUE.table} (
     id TEXT PRIMARY KEY NOT NULL,
     project_id TEXT NOT NULL,
     recipient TEXT NOT NULL,
     subject TEXT NOT NULL,
     text_body TEXT NOT NULL,
     html_body TEXT NOT NULL,
     status TEXT NOT NULL,
     attempts INTEGER NOT NULL,
     next_attempt_at TEXT NOT NULL,
     locked_until TEXT,
     created_at TEXT NOT NULL,
     sent_at TEXT,
     last_error TEXT
   ) STRICT;
   CREATE INDEX mail_queue_due ON ${MAIL_QUEUE.table} (status, next_attempt_at);
   CREATE INDEX mail_queue_project ON ${MAIL_QUEUE.table} (project_id, created_at);`,
  // 2: the From address chosen at enqueue time (the project's email_from, else EMAIL_FROM).
  `ALTER TABLE ${MAIL_QUEUE.table} ADD COLUMN sender TEXT;`,
  // 3: dashboard sessions (src/projects/dashboard-tokens.ts): a key exchanged for a short-lived
  // token, only the secret's hash kept. A project's tokens go with the project, and a project
  // token with the sk_ key it came from; a platform token names the platform key's fingerprint.
  `CREATE TABLE ${DASHBOARD_SESSIONS.table} (
     id TEXT PRIMARY KEY NOT NULL,
     secret_hash TEXT NOT NULL,
     project_id TEXT REFERENCES ${PROJECTS.table}(id) ON DELETE CASCADE,
     key_id TEXT REFERENCES ${PROJECT_KEYS.table}(id) ON DELETE CASCADE,
     platform_key_fingerprint TEXT,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     revoked_at TEXT
   ) STRICT;
   CREATE INDEX dashboard_sessions_expires ON ${DASHBOARD_SESSIONS.table} (expires_at);
   CREATE INDEX dashboard_sessions_project ON ${DASHBOARD_SESSIONS.table} (project_id);
   CREATE INDEX dashboard_sessions_key ON ${DASHBOARD_SESSIONS.table} (key_id);`,
];

/** Project database: table definitions, sessions and one-time tokens. */
export const PROJECT_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${TABLE_DEFINITIONS.table} (
     name TEXT PRIMARY KEY NOT NULL,
     definition TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE ${SESSIONS.table} (
     id TEXT PRIMARY KEY NOT NULL,
     user_id TEXT NOT NULL,
     refresh_hash TEXT NOT NULL UNIQUE,
     previous_refresh_hash TEXT,
     previous_valid_until TEXT,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     revoked_at TEXT
   ) STRICT;
   CREATE INDEX _rb_sessions_user ON ${SESSIONS.table} (user_id);
   CREATE INDEX _rb_sessions_previous ON ${SESSIONS.table} (previous_refresh_hash);
   CREATE TABLE ${ONE_TIME_TOKENS.table} (
     hash TEXT PRIMARY KEY NOT NULL,
     kind TEXT NOT NULL,
     user_id TEXT NOT NULL,
     password_version INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     used_at TEXT
   ) STRICT;
   CREATE INDEX _rb_one_time_tokens_user ON ${ONE_TIME_TOKENS.table} (user_id, kind);`,
  // 2: refresh tokens replaced by rotation, so a replay of any of them (not just the previous) is
  // caught; rows go with their session and once `expires_at` (the session's expiry when spent) passes.
  `CREATE TABLE ${SPENT_REFRESH_TOKENS.table} (
     hash TEXT PRIMARY KEY NOT NULL,
     session_id TEXT NOT NULL,
     user_id TEXT NOT NULL,
     spent_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   ) STRICT;
   CREATE INDEX _rb_spent_refresh_tokens_session ON ${SPENT_REFRESH_TOKENS.table} (session_id);
   CREATE INDEX _rb_spent_refresh_tokens_user ON ${SPENT_REFRESH_TOKENS.table} (user_id);
   CREATE INDEX _rb_spent_refresh_tokens_expires ON ${SPENT_REFRESH_TOKENS.table} (expires_at);`,
  // 3: what GET /auth/sessions shows of a session: when it was last used (written at most once
  // a minute, src/auth/session-activity.ts) and the User-Agent that signed in.
  `ALTER TABLE ${SESSIONS.table} ADD COLUMN last_used_at TEXT;
   ALTER TABLE ${SESSIONS.table} ADD COLUMN user_agent TEXT;`,
  // 4: the realtime event log (src/changes/event-log.ts): numbered row changes and identity
  // ends (AUTOINCREMENT: numbers never come back after a trim), and how far it was trimmed.
  `CREATE TABLE ${EVENTS.table} (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     created_at TEXT NOT NULL,
     table_name TEXT NOT NULL,
     action TEXT NOT NULL,
     record TEXT NOT NULL
   ) STRICT;
   CREATE INDEX _rb_events_created ON ${EVENTS.table} (created_at);
   CREATE TABLE ${EVENT_STATE.table} (
     id INTEGER PRIMARY KEY NOT NULL,
     last_seq INTEGER NOT NULL,
     trimmed_through INTEGER NOT NULL
   ) STRICT;
   INSERT INTO ${EVENT_STATE.table} (id, last_seq, trimmed_through) VALUES (1, 0, 0);`,
  // 5: every write appends to the event log now, not only while a stream listens: the index on
  // created_at cost each of them a page; the trim walks up from the oldest entry instead.
  `DROP INDEX IF EXISTS _rb_events_created;`,
];

/** Brings a database up to the latest migration, each step in its own transaction. */
export function migrate(db: BetterSqlite3.Database, steps: readonly string[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < steps.length; version++) {
    db.transaction(() => {
      db.exec(steps[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
