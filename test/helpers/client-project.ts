/**
 * Fixtures for the SDK tests (test/client, test/browser): a project with an auth table and a
 * `tasks` table, the Database type `rowbase types` would print for it, and an SDK client whose
 * requests are recorded (the real fetch, observed, never replaced).
 */
import assert from 'node:assert/strict';
import { createClient, RowbaseError, type ClientOptions, type RowbaseClient } from '../../packages/client/src/index.js';
import { createAuthProject, type AuthProjectOptions } from './auth-fixtures.js';
import { putTable, type TestProject, type TestServer } from './test-server.js';

/** The row, create and update shapes of `tasks`, as the generated declarations give them. */
export interface TasksRow {
  id: string;
  created_at: string;
  updated_at: string;
  title: string;
  done: boolean;
  priority: number | null;
  owner: string | null;
}
export interface TasksCreate {
  /** Generated when left out (the server's create body takes one, as its OpenAPI document says). */
  id?: string;
  title: string;
  done?: boolean;
  priority?: number | null;
  owner?: string | null;
}
export type TasksUpdate = Partial<Omit<TasksCreate, 'id'>>;

export interface UsersRow {
  id: string;
  email: string;
  email_verified: boolean;
  created_at: string;
  updated_at: string;
  name: string | null;
}

/** The generated Database type of the fixture project. */
export type TestDatabase = {
  tasks: { Row: TasksRow; Create: TasksCreate; Update: TasksUpdate };
  users: {
    Row: UsersRow;
    Create: { email: string; password: string; name?: string | null };
    Update: { name?: string | null };
  };
};

/**
 * Creates a project with `users` (auth table, `name` column) and `tasks` (anyone may list and
 * view; signed-in users create, update and delete their own rows).
 */
export async function createClientProject(server: TestServer, options: AuthProjectOptions = {}): Promise<TestProject> {
  const project = await createAuthProject(server, options);
  await putTable(server, project, 'tasks', {
    columns: [
      { name: 'title', type: 'text', required: true, max_length: 200 },
      { name: 'done', type: 'boolean', default: false },
      { name: 'priority', type: 'integer' },
      { name: 'owner', type: 'text' },
    ],
    rules: {
      list: '',
      view: '',
      create: '@request.auth.id != "" && owner = @request.auth.id',
      update: 'owner = @request.auth.id',
      delete: 'owner = @request.auth.id',
    },
  });
  return project;
}

/** One request the SDK sent: method and path (with query), as the server saw them. */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
}

/** A client plus the requests it sent, in order. */
export interface RecordedClient {
  readonly client: RowbaseClient<TestDatabase, UsersRow>;
  readonly sent: SentRequest[];
  /** How many POST /auth/refresh were sent. */
  refreshes(): number;
}

/** Creates an SDK client of `project` whose requests go through the real fetch and are recorded. */
export function recordedClient(
  server: TestServer,
  project: TestProject,
  options: Partial<ClientOptions> = {},
): RecordedClient {
  const sent: SentRequest[] = [];
  const client = createClient<TestDatabase, UsersRow>({
    url: server.url,
    project: project.id,
    apiKey: project.publishableKey,
    ...options,
    fetch: (input, init) => {
      const url = new URL(String(input));
      sent.push({
        method: init?.method ?? 'GET',
        path: url.pathname + url.search,
        headers: new Headers(init?.headers),
      });
      return (options.fetch ?? fetch)(input, init);
    },
  });
  return {
    client,
    sent,
    refreshes: () =>
      sent.filter((request) => request.method === 'POST' && request.path.endsWith('/auth/refresh')).length,
  };
}

/** Awaits `call` and returns the RowbaseError it throws; fails if it resolves or throws anything else. */
export async function rejection(call: Promise<unknown>): Promise<RowbaseError> {
  const error = await call.then(
    (value) => assert.fail(`expected a RowbaseError, got ${JSON.stringify(value)}`),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof RowbaseError, `not a RowbaseError: ${String(error)}`);
  return error;
}

/** Asserts a server error as the SDK throws it: status, code, and the envelope's non-empty message and suggestion. */
export function assertServerError(error: RowbaseError, status: number, code: string): void {
  assert.equal(error.code, code, `${error.code}: ${error.message}`);
  assert.equal(error.status, status);
  assert.ok(error.message.length > 0 && error.suggestion.length > 0, 'message and suggestion are carried over');
  assert.equal(error.name, 'RowbaseError');
}
