/**
 * The internal tables of both engines, described once: each descriptor names a table and its
 * columns with the type the code reads them as. The migrations of both engines
 * (`sqlite/sqlite-migrations.ts`, `postgres/pg-migrations.ts`) create the tables under these
 * names, and every statement that reads or writes them (auth, tables, projects, mail, the
 * realtime event log) takes its table and columns from here instead of string literals.
 * `test/contract/storage-system-tables.test.ts` checks each descriptor against what the
 * migrations built, on every engine.
 *
 * A descriptor says what the tables are now; the migrations keep their history (an applied
 * migration is never edited), so a column added later is appended here and in a new step.
 *
 * A few tables exist on PostgreSQL only (rate-limit windows and change counters that several
 * processes share, each schema's migration record); their descriptors say so (`onlyOn`) and
 * are listed apart, since SQLite has no such table.
 */
import type { ColumnRef, ValueType } from '../query/sql-tree.js';

/** A column of an internal table; `N` is its name as a literal type. */
export interface SystemColumn<N extends string = string> extends ColumnRef {
  readonly name: N;
}

/** An internal table: its name and its columns in table order. */
export interface SystemTable<N extends string = string> {
  readonly table: string;
  readonly columns: readonly SystemColumn<N>[];
  /** The one engine whose migrations create this table; absent when every engine has it. */
  readonly onlyOn?: 'postgres';
}

const column =
  (type: ValueType) =>
  <N extends string>(name: N): SystemColumn<N> =>
    Object.freeze({ name, type });
const text = column('text');
const integer = column('integer');
const json = column('json');
const boolean = column('boolean');

function systemTable<N extends string>(table: string, columns: readonly SystemColumn<N>[]): SystemTable<N> {
  return Object.freeze({ table, columns: Object.freeze([...columns]) });
}

function postgresTable<N extends string>(table: string, columns: readonly SystemColumn<N>[]): SystemTable<N> {
  return Object.freeze({ table, columns: Object.freeze([...columns]), onlyOn: 'postgres' as const });
}

/** The column `name` of `table` (names are checked by the compiler). */
export function col<N extends string>(table: SystemTable<N>, name: N): SystemColumn<N> {
  const found = table.columns.find((c) => c.name === name);
  if (!found) throw new Error(`no column ${name} in ${table.table}`);
  return found;
}

/** The columns `names` of `table`, in the order given (a statement that needs only some). */
export function cols<N extends string>(table: SystemTable<N>, names: readonly N[]): SystemColumn<N>[] {
  return names.map((name) => col(table, name));
}

// System database (SQLite `system.db`, PostgreSQL schema `rowbase`).

/** Projects: id, display name, creation time. */
export const PROJECTS = systemTable('projects', [text('id'), text('name'), text('created_at')]);

/** API keys of projects, stored as hashes with a display prefix. */
export const PROJECT_KEYS = systemTable('project_keys', [
  text('id'),
  text('project_id'),
  text('type'),
  text('prefix'),
  text('hash'),
  text('created_at'),
  text('last_used_at'),
  text('expires_at'),
]);

/** Settings of each project, and the secret its access tokens are signed with. */
export const PROJECT_SETTINGS = systemTable('project_settings', [
  text('project_id'),
  json('settings'),
  text('jwt_secret'),
  text('jwt_rotated_at'),
]);

/** Platform-wide name → value settings (the platform key's hash). */
export const PLATFORM_SETTINGS = systemTable('platform_settings', [text('name'), text('value')]);

/** Mail waiting to be sent, being sent, or sent (the outbox). */
export const MAIL_QUEUE = systemTable('mail_queue', [
  text('id'),
  text('project_id'),
  text('recipient'),
  text('subject'),
  text('text_body'),
  text('html_body'),
  text('status'),
  integer('attempts'),
  text('next_attempt_at'),
  text('locked_until'),
  text('created_at'),
  text('sent_at'),
  text('last_error'),
  text('sender'),
]);

/** Dashboard sessions: a key exchanged for a short-lived token; only the secret's hash is kept. */
export const DASHBOARD_SESSIONS = systemTable('dashboard_sessions', [
  text('id'),
  text('secret_hash'),
  text('project_id'),
  text('key_id'),
  text('platform_key_fingerprint'),
  text('created_at'),
  text('expires_at'),
  text('revoked_at'),
]);

// Project database (SQLite `projects/<id>.db`, PostgreSQL schema `p_<id>`).

/** The project's table definitions, as the schema API stored them. */
export const TABLE_DEFINITIONS = systemTable('_rb_tables', [
  text('name'),
  json('definition'),
  text('created_at'),
  text('updated_at'),
]);

/** Sessions and the hashes of their refresh tokens. */
export const SESSIONS = systemTable('_rb_sessions', [
  text('id'),
  text('user_id'),
  text('refresh_hash'),
  text('previous_refresh_hash'),
  text('previous_valid_until'),
  text('created_at'),
  text('expires_at'),
  text('revoked_at'),
  text('last_used_at'),
  text('user_agent'),
]);

/** Refresh tokens replaced by rotation, remembered so that a replay is caught. */
export const SPENT_REFRESH_TOKENS = systemTable('_rb_spent_refresh_tokens', [
  text('hash'),
  text('session_id'),
  text('user_id'),
  text('spent_at'),
  text('expires_at'),
]);

/** Password-reset and verification tokens, as hashes. */
export const ONE_TIME_TOKENS = systemTable('_rb_one_time_tokens', [
  text('hash'),
  text('kind'),
  text('user_id'),
  integer('password_version'),
  text('created_at'),
  text('expires_at'),
  text('used_at'),
]);

/** The realtime event log: numbered row changes and identity ends. */
export const EVENTS = systemTable('_rb_events', [
  integer('seq'),
  text('created_at'),
  text('table_name'),
  text('action'),
  text('record'),
]);

/** The event log's one bookkeeping row: the last number taken and how far the log was trimmed. */
export const EVENT_STATE = systemTable('_rb_event_state', [
  integer('id'),
  integer('last_seq'),
  integer('trimmed_through'),
]);

// PostgreSQL only.

/**
 * Rate-limit windows every server process shares (`postgres/pg-rate-limiter.ts`), in the
 * system schema; times are epoch milliseconds.
 */
export const RATE_LIMITS = postgresTable('rate_limits', [
  text('key'),
  integer('count'),
  integer('reset_at'),
  boolean('allowed'),
]);

/**
 * The committed change counter of each schema, bumped by the change trigger and read by the
 * caches of every process (`postgres/pg-change-counters.ts`), in the system schema.
 */
export const CHANGE_VERSIONS = postgresTable('change_versions', [text('schema_name'), integer('version')]);

/** The migration steps applied to a schema, in the system schema and in every project schema. */
export const MIGRATIONS = postgresTable('_rb_migrations', [integer('version')]);

/** Every internal table of the system database. */
export const SYSTEM_DATABASE_TABLES: readonly SystemTable[] = Object.freeze([
  PROJECTS,
  PROJECT_KEYS,
  PROJECT_SETTINGS,
  PLATFORM_SETTINGS,
  MAIL_QUEUE,
  DASHBOARD_SESSIONS,
]);

/** Every internal table of a project database. */
export const PROJECT_DATABASE_TABLES: readonly SystemTable[] = Object.freeze([
  TABLE_DEFINITIONS,
  SESSIONS,
  SPENT_REFRESH_TOKENS,
  ONE_TIME_TOKENS,
  EVENTS,
  EVENT_STATE,
]);

/** The tables PostgreSQL's system schema has beyond `SYSTEM_DATABASE_TABLES`. */
export const POSTGRES_SYSTEM_SCHEMA_TABLES: readonly SystemTable[] = Object.freeze([
  RATE_LIMITS,
  CHANGE_VERSIONS,
  MIGRATIONS,
]);

/** The tables a PostgreSQL project schema has beyond `PROJECT_DATABASE_TABLES`. */
export const POSTGRES_PROJECT_SCHEMA_TABLES: readonly SystemTable[] = Object.freeze([MIGRATIONS]);
