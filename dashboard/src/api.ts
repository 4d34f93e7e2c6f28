/**
 * The one module that talks to the server: the public HTTP API on the same origin, through
 * the SDK's request core and event stream parser (@rowbase/client), so the dashboard and the
 * SDK read answers, errors and the realtime stream the same way. Credentials travel in headers
 * only (never in a URL): the key once, to exchange it for a dashboard token, then only the
 * token. Errors are the SDK's RowbaseError with the server's code, message and suggestion; a
 * refused token ends the session (the app returns to sign-in).
 */
import { readEventStream, RowbaseError, sendJson } from '@rowbase/client';
import { endSession, type Session } from './session';

export { RowbaseError };

/** A column's type (contract §2). */
export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'json';
/** What deleting a referenced row does to the rows pointing at it. */
export type OnDelete = 'cascade' | 'restrict' | 'set_null';
/** Every column type, in the order the editor offers them. */
export const COLUMN_TYPES: readonly ColumnType[] = ['text', 'integer', 'number', 'boolean', 'timestamp', 'json'];
/** The five operations a table has a rule for. */
export const RULE_OPERATIONS = ['list', 'view', 'create', 'update', 'delete'] as const;
/** One of RULE_OPERATIONS. */
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

/** A declared column as the schema API reads and writes it. */
export interface Column {
  name: string;
  type: ColumnType;
  required?: boolean;
  unique?: boolean;
  default?: unknown;
  references?: { table: string; on_delete: OnDelete };
  max_length?: number;
  enum?: string[];
  min?: number;
  max?: number;
}

/** A table definition (GET/PUT /p/{id}/v1/tables/{table}). */
export interface Table {
  name: string;
  columns: Column[];
  auth_table: boolean;
  verify_email: boolean;
  rules: Record<RuleOperation, string | null>;
  indexes: string[][];
  /** Text columns full-text search reads; absent when the table declares none. */
  search?: string[];
}

/** A project as the platform API lists it. */
export interface Project {
  id: string;
  name: string;
  created_at: string;
}

/** A project just created: the only answer that carries its keys. */
export interface CreatedProject extends Project {
  admin_key: string;
  publishable_key: string;
}

/** A row of the data API. */
export type Row = Record<string, unknown> & { id: string };

/** A list answer: one page and its meta. */
export interface Page<T> {
  data: T[];
  meta: { total: number | null; limit: number; offset: number; next_cursor?: string | null };
}

/** A key as GET /v1/keys lists it (never the key itself). */
export interface KeyInfo {
  type: 'sk' | 'pk';
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** A mail of the outbox. */
export interface Email {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  created_at: string;
}

/** A project's settings, as the server reports them (the dashboard shows whatever is there). */
export type Settings = Record<string, unknown>;

/** One of a user's sessions (admin sessions endpoint). */
export interface UserSession {
  id: string;
  created_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  current?: boolean;
}

/** What signing in proves: the platform key, or a project id and its admin key. Never stored. */
export type SignInKey = { kind: 'platform'; key: string } | { kind: 'project'; projectId: string; key: string };

/** The header that carries a session's dashboard token, for every call after sign-in. */
export function credentialHeaders(session: Session): Record<string, string> {
  return { 'x-dashboard-token': session.token };
}

/** The exchange answer (POST /v1/dashboard/sessions). */
interface DashboardToken {
  token: string;
  expires_at: string;
  scope: 'platform' | 'project';
  project_id: string | null;
}

const SESSIONS_PATH = '/v1/dashboard/sessions';

/** An answer of the API: its parsed body and the headers the dashboard reads (ETag). */
interface Answer<T> {
  body: T;
  etag: string | null;
}

async function send<T>(
  session: Session,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Answer<T>> {
  try {
    return await request<T>(credentialHeaders(session), method, path, body, extraHeaders);
  } catch (error) {
    // The token ended (12 hours passed, signed out in another tab, its key rotated out): back to sign-in.
    if (error instanceof RowbaseError && (error.code === 'AUTH_TOKEN_EXPIRED' || error.code === 'AUTH_INVALID_TOKEN'))
      endSession(error.code === 'AUTH_TOKEN_EXPIRED');
    throw error;
  }
}

/** Never a cached answer, and never the browser's cookies: the token header is the only credential. */
const PAGE_FETCH: RequestInit = { cache: 'no-store', credentials: 'omit' };

async function request<T>(
  credentials: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Answer<T>> {
  const answer = await sendJson<T>({
    method,
    url: path,
    server: location.origin,
    headers: { ...credentials, ...extraHeaders },
    body,
    init: PAGE_FETCH,
  });
  return { body: answer.body, etag: answer.headers.get('etag') };
}

async function call<T>(session: Session, method: string, path: string, body?: unknown): Promise<T> {
  return (await send<T>(session, method, path, body)).body;
}

/** A table with the version it was read or written at (its ETag), for a later If-Match. */
export interface VersionedTable {
  table: Table;
  etag: string;
}

/**
 * How a table write may proceed: `createOnly` sends If-None-Match: * (an existing table is
 * refused with TABLE_EXISTS); `ifMatch` sends If-Match (a table changed since is refused with
 * SCHEMA_CHANGED); `allowDestructive` confirms dropping columns or converting types.
 */
export interface TableWrite {
  createOnly?: boolean;
  ifMatch?: string;
  allowDestructive?: boolean;
}

function versioned(answer: Answer<{ data: Table }>): VersionedTable {
  return { table: answer.body.data, etag: answer.etag ?? '' };
}

const enc = encodeURIComponent;
const project = (id: string) => `/p/${enc(id)}`;

/** Query parameters of a row list (contract §6). */
export interface ListParams {
  limit: number;
  offset: number;
  /** A next_cursor from the previous page; sent instead of offset (the two cannot be combined). */
  after?: string;
  sort?: string;
  filter?: string;
  /** Reference columns whose rows come along (`expand=`), comma-separated. */
  expand?: string;
  /** Full-text search (`search=`) over the table's search columns. */
  search?: string;
}

/** Every call the dashboard makes, one function per endpoint. */
export const api = {
  /** Exchanges a key for a dashboard token (contract §12); the key goes no further than this request. */
  signIn: async (key: SignInKey): Promise<Session> => {
    const answer =
      key.kind === 'platform'
        ? await request<{ data: DashboardToken }>({ 'x-platform-key': key.key }, 'POST', SESSIONS_PATH, {})
        : await request<{ data: DashboardToken }>({ 'x-admin-key': key.key }, 'POST', SESSIONS_PATH, {
            project_id: key.projectId,
          });
    const { token, expires_at: expiresAt, project_id: projectId } = answer.body.data;
    return projectId === null
      ? { kind: 'platform', token, expiresAt }
      : { kind: 'project', projectId, token, expiresAt };
  },
  /**
   * Signs the token out on the server. Its refusal (already ended)
   * is the caller's to ignore: it does not end another session.
   */
  signOut: (s: Session) =>
    request<void>(credentialHeaders(s), 'DELETE', `${SESSIONS_PATH}/current`).then(() => undefined),

  listProjects: (s: Session, limit = 1000, offset = 0) =>
    call<Page<Project>>(s, 'GET', `/v1/projects?limit=${limit}&offset=${offset}`),
  createProject: (s: Session, body: { name: string; id?: string }) =>
    call<{ data: CreatedProject }>(s, 'POST', '/v1/projects', body).then((r) => r.data),
  deleteProject: (s: Session, id: string) => call<void>(s, 'DELETE', `/v1/projects/${enc(id)}`),

  listTables: (s: Session, id: string) =>
    call<{ data: Table[] }>(s, 'GET', `${project(id)}/v1/tables`).then((r) => r.data),
  getTable: (s: Session, id: string, table: string) =>
    call<{ data: Table }>(s, 'GET', `${project(id)}/v1/tables/${enc(table)}`).then((r) => r.data),
  readTable: (s: Session, id: string, table: string) =>
    send<{ data: Table }>(s, 'GET', `${project(id)}/v1/tables/${enc(table)}`).then(versioned),
  putTable: (s: Session, id: string, table: string, body: Omit<Table, 'name'>, write: TableWrite = {}) => {
    const headers: Record<string, string> = {};
    if (write.createOnly) headers['if-none-match'] = '*';
    if (write.ifMatch) headers['if-match'] = write.ifMatch;
    const query = write.allowDestructive ? '?allow_destructive=true' : '';
    return send<{ data: Table }>(s, 'PUT', `${project(id)}/v1/tables/${enc(table)}${query}`, body, headers).then(
      versioned,
    );
  },
  deleteTable: (s: Session, id: string, table: string) =>
    call<void>(s, 'DELETE', `${project(id)}/v1/tables/${enc(table)}`),

  listRows: (s: Session, id: string, table: string, params: ListParams) => {
    const query = new URLSearchParams({ limit: String(params.limit) });
    if (params.after) query.set('after', params.after);
    else query.set('offset', String(params.offset));
    if (params.sort) query.set('sort', params.sort);
    if (params.filter) query.set('filter', params.filter);
    if (params.search) query.set('search', params.search);
    if (params.expand) query.set('expand', params.expand);
    return call<Page<Row>>(s, 'GET', `${project(id)}/api/${enc(table)}?${query}`);
  },
  createRow: (s: Session, id: string, table: string, body: Record<string, unknown>) =>
    call<{ data: Row }>(s, 'POST', `${project(id)}/api/${enc(table)}`, body).then((r) => r.data),
  updateRow: (s: Session, id: string, table: string, rowId: string, body: Record<string, unknown>) =>
    call<{ data: Row }>(s, 'PATCH', `${project(id)}/api/${enc(table)}/${enc(rowId)}`, body).then((r) => r.data),
  deleteRow: (s: Session, id: string, table: string, rowId: string) =>
    call<void>(s, 'DELETE', `${project(id)}/api/${enc(table)}/${enc(rowId)}`),

  getSettings: (s: Session, id: string) =>
    call<{ data: Settings }>(s, 'GET', `${project(id)}/v1/settings`).then((r) => r.data),
  patchSettings: (s: Session, id: string, patch: Settings) =>
    call<{ data: Settings }>(s, 'PATCH', `${project(id)}/v1/settings`, patch).then((r) => r.data),
  rotateKeys: (s: Session, id: string, body: { type?: 'sk' | 'pk'; grace_seconds?: number }) =>
    call<{ data: { admin_key?: string; publishable_key?: string } }>(
      s,
      'POST',
      `${project(id)}/v1/rotate-keys`,
      body,
    ).then((r) => r.data),
  rotateJwtSecret: (s: Session, id: string, revokeSessions: boolean) =>
    call<{ data: { rotated_at: string } }>(s, 'POST', `${project(id)}/v1/rotate-jwt-secret`, {
      revoke_sessions: revokeSessions,
    }).then((r) => r.data),
  listKeys: (s: Session, id: string) =>
    call<{ data: KeyInfo[] }>(s, 'GET', `${project(id)}/v1/keys`).then((r) => r.data),
  listEmails: (s: Session, id: string, limit = 100, offset = 0) =>
    call<Page<Email>>(s, 'GET', `${project(id)}/v1/emails?limit=${limit}&offset=${offset}`),

  listUserSessions: (s: Session, id: string, userId: string) =>
    call<{ data: UserSession[] }>(s, 'GET', `${project(id)}/v1/users/${enc(userId)}/sessions`).then((r) => r.data),
  endUserSessions: (s: Session, id: string, userId: string) =>
    call<void>(s, 'DELETE', `${project(id)}/v1/users/${enc(userId)}/sessions`),
  /**
   * Asks the auth API for a reset mail to `email` (contract §5);
   * the answer is the same whether or not the email exists.
   */
  sendPasswordReset: (s: Session, id: string, body: { email: string; redirect_url: string }) =>
    call<{ message: string }>(s, 'POST', `${project(id)}/auth/forgot-password`, body),
  subscribe: (s: Session, id: string, clientId: string, subscriptions: string[]) =>
    call<unknown>(s, 'POST', `${project(id)}/realtime`, { client_id: clientId, subscriptions }),
};

/**
 * Watches one table through realtime (contract §11): opens the event stream, subscribes to
 * `table` with the session's token (sent in a header, never in the URL), and calls `onChange`
 * for every change or `reset`. Read with fetch rather than EventSource, so a server without
 * realtime costs one 404 and nothing else. `onLive` says whether the subscription is active.
 * Returns the function that stops watching.
 */
export function watchTable(
  session: Session,
  projectId: string,
  table: string,
  onChange: () => void,
  onLive: (live: boolean) => void,
): () => void {
  const abort = new AbortController();
  const run = async () => {
    const response = await fetch(`${project(projectId)}/realtime`, {
      ...PAGE_FETCH,
      headers: { accept: 'text/event-stream' },
      signal: abort.signal,
    });
    if (!response.ok || !response.body) return;
    await readEventStream(response.body, async (event) => {
      if (event.event === 'connect') {
        const { client_id } = JSON.parse(event.data) as { client_id: string };
        await api.subscribe(session, projectId, client_id, [table]);
        onLive(true);
      } else if (event.event === table || event.event === 'reset') {
        onChange();
      } else if (event.event === 'auth_expired') {
        onLive(false);
      }
    });
  };
  run()
    .catch(() => undefined)
    .finally(() => abort.signal.aborted || onLive(false));
  return () => abort.abort();
}
