/** Column descriptors of the system database's tables, for building statements. */
import type { ColumnRef } from '../query/sql-tree.js';

const text = (name: string): ColumnRef => ({ name, type: 'text' });
const integer = (name: string): ColumnRef => ({ name, type: 'integer' });

export const PROJECTS = { table: 'projects', columns: [text('id'), text('name'), text('created_at')] } as const;

export const PROJECT_KEYS = {
  table: 'project_keys',
  columns: [text('id'), text('project_id'), text('type'), text('prefix'), text('hash'), text('created_at'), text('last_used_at'), text('expires_at')],
} as const;

export const PROJECT_SETTINGS = {
  table: 'project_settings',
  columns: [text('project_id'), { name: 'settings', type: 'json' } as ColumnRef, text('jwt_secret'), text('jwt_rotated_at')],
} as const;

export const PLATFORM_SETTINGS = { table: 'platform_settings', columns: [text('name'), text('value')] } as const;

export const MAIL_QUEUE = {
  table: 'mail_queue',
  columns: [
    text('id'), text('project_id'), text('recipient'), text('subject'), text('text_body'), text('html_body'),
    text('status'), integer('attempts'), text('next_attempt_at'), text('locked_until'), text('created_at'),
    text('sent_at'), text('last_error'), text('sender'),
  ],
} as const;

export const DASHBOARD_SESSIONS = {
  table: 'dashboard_sessions',
  columns: [
    text('id'), text('secret_hash'), text('project_id'), text('key_id'), text('platform_key_fingerprint'),
    text('created_at'), text('expires_at'), text('revoked_at'),
  ],
} as const;

/** Looks up a column descriptor by name in one of the tables above. */
export function col(table: { readonly columns: readonly ColumnRef[] }, name: string): ColumnRef {
  const found = table.columns.find((c) => c.name === name);
  if (!found) throw new Error(`no column ${name}`);
  return found;
}
