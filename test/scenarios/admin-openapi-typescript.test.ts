/**
 * A real project's OpenAPI document through a third-party client generator (openapi-typescript,
 * the one most TypeScript apps use), then `tsc`: the generated types must let a program use
 * every endpoint as docs/openapi.md and docs/api.md describe (paths, query parameters, bodies,
 * answers, expand), refuse marked misuses, and accept every answer the server gave in this test.
 *
 * Design of the answers check: each answer below is recorded as it arrives and written into the
 * program as `const a: Answer<path, method, status> = <the JSON>`, so tsc checks real answers
 * against the generated types (excess properties included). The rest of the HTTP suite checks
 * every answer with ajv (test/helpers/openapi-truth.ts) against the very document object whose
 * JSON text GET /v1/openapi.json serves and openapi-typescript reads here; what could still part
 * the two readings is a keyword the generator reads more strictly than JSON Schema does. The one
 * such keyword is `default` in a component (openapi-typescript makes the property required),
 * and the precision scenarios assert that components carry none.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { bearer, PASSWORD, tokenIn, waitForMail } from '../helpers/auth-fixtures.js';
import { applySchema, type SchemaFixture } from '../helpers/openapi-fixtures.js';
import { openStream } from '../helpers/sse-client.js';
import {
  createProject,
  startTestServer,
  type RequestOptions,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const TSC = path.resolve('node_modules/typescript/bin/tsc');

/** Every column type, an auth table with verify_email, and references both ways (tasks → members, comments → tasks). */
const SCHEMA: SchemaFixture = [
  [
    'members',
    {
      auth_table: true,
      verify_email: true,
      columns: [
        { name: 'nickname', type: 'text', unique: true, max_length: 30 },
        { name: 'role', type: 'text', enum: ['member', 'editor'], default: 'member' },
      ],
      rules: { list: '', view: '' },
    },
  ],
  [
    'tasks',
    {
      columns: [
        { name: 'title', type: 'text', required: true, max_length: 200 },
        { name: 'status', type: 'text', enum: ['open', 'closed'], default: 'open' },
        { name: 'done', type: 'boolean', default: false },
        { name: 'priority', type: 'integer', min: 1, max: 5, required: true, default: 3 },
        { name: 'score', type: 'number' },
        { name: 'owner', type: 'text', references: { table: 'members', on_delete: 'set_null' } },
        { name: 'due', type: 'timestamp' },
        { name: 'meta', type: 'json' },
      ],
      rules: { list: '', view: '', create: '', update: '', delete: '' },
    },
  ],
  [
    'comments',
    {
      columns: [
        { name: 'body', type: 'text', required: true },
        { name: 'task', type: 'text', references: { table: 'tasks', on_delete: 'cascade' } },
      ],
      rules: { list: '', view: '', create: '', update: '', delete: '' },
    },
  ],
];

/** Helpers over the generated `paths`, then uses of every endpoint; marked lines must be compile errors. */
const PROGRAM = `import type { components, paths } from './api';

type Op<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
type Body<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Query<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = Op<P, M> extends { responses: infer R }
  ? S extends keyof R ? (R[S] extends { content: { 'application/json': infer A } } ? A : never) : never
  : never;

export function use(
  listed: Answer<'/api/tasks', 'get', 200>,
  got: Answer<'/api/tasks/{row_id}', 'get', 200>,
  member: Answer<'/api/members/{row_id}', 'get', 200>,
  session: Answer<'/auth/signup', 'post', 201>,
  refused: Answer<'/api/tasks', 'get', 401>,
): unknown[] {
  // Data API: create (defaulted columns may be left out), bulk, patch (any subset), list parameters.
  const create: Body<'/api/tasks', 'post'> = { title: 'Buy milk', due: '2026-12-01T09:00:00Z', meta: { tags: ['a'] } };
  const bulk: Body<'/api/tasks/bulk', 'post'> = [create, { title: 'Water plants', priority: 2, done: null }];
  const patch: Body<'/api/tasks/{row_id}', 'patch'> = { done: true };
  const query: Query<'/api/tasks', 'get'> = {
    limit: 10, offset: 0, sort: '-created_at,title', select: 'title,done', filter: 'done = false',
    expand: 'owner,comments(task)', title: 'ilike.*milk*', count: 'none',
  };
  const comment: Body<'/api/comments', 'post'> = { body: 'First', task: 'some-id' };
  const memberPatch: Body<'/api/members/{row_id}', 'patch'> = { nickname: 'ada' };
  // Answers: rows, the list envelope, expand typed by the related tables' rows.
  const total: number | null = listed.meta.total;
  const cursor: string | null = listed.meta.next_cursor;
  const title: string = got.data.title;
  const priority: number = got.data.priority;
  const ownerNickname: string | null | undefined = got.data.expand?.owner?.nickname;
  const firstComment: string | undefined = got.data.expand?.['comments(task)']?.[0]?.body;
  const ownTasks: components['schemas']['TasksRow'][] | undefined = member.data.expand?.['tasks(owner)'];
  const nestedOwner: string | undefined = member.data.expand?.['tasks(owner)']?.[0]?.expand?.owner?.email;
  // Auth.
  const signup: Body<'/auth/signup', 'post'> = { email: 'ada@example.com', password: 'correct ' +
      'horse battery', nickname: 'ada' };
  const login: Body<'/auth/login', 'post'> = { email: 'ada@example.com', password: 'correct horse battery' };
  const refresh: Body<'/auth/refresh', 'post'> = { refresh_token: session.refresh_token };
  const change: Body<'/auth/change-password', 'post'> = { current_password: 'a', new_password: 'correct ' +
      'horse battery 2' };
  const forgot: Body<'/auth/forgot-password', 'post'> = {
    email: 'ada@example.com',
    redirect_url: 'https://app.example.com/reset',
  };
  const reset: Body<'/auth/reset-password', 'post'> = { token: 't', new_password: 'correct horse battery 3' };
  const verify: Query<'/auth/verify', 'get'> = { token: 't' };
  const logout: Query<'/auth/logout', 'post'> = { scope: 'others' };
  const email: string = session.user.email;
  const verified: boolean = session.user.email_verified;
  const subscribe: Body<'/realtime', 'post'> = {
    client_id: 'c',
    subscriptions: ['tasks', 'tasks/1', 'tasks?filter=done%3Dfalse'],
  };
  const code: string = refused.error.code;

  // @ts-expect-error a column the table does not have
  const typo: Body<'/api/tasks', 'post'> = { title: 'x', titel: 'typo' };
  // @ts-expect-error the required title left out
  const missing: Body<'/api/tasks', 'post'> = { done: true };
  // @ts-expect-error a value outside the enum
  const outside: Body<'/api/tasks/{row_id}', 'patch'> = { status: 'archived' };
  // @ts-expect-error created_at is the server's
  const stamped: Body<'/api/tasks/{row_id}', 'patch'> = { created_at: '2026-01-01T00:00:00Z' };
  // @ts-expect-error not an expansion of tasks
  const notExpansion = got.data.expand?.author;
  // @ts-expect-error the expanded owner may be null
  const maybeNull: string = got.data.expand!.owner.email;
  // @ts-expect-error a row never carries the password
  const password = session.user.password;
  return [create, bulk, patch, query, comment, memberPatch, total, cursor, title, priority, ownerNickname,
    firstComment, ownTasks, nestedOwner, signup, login, refresh, change, forgot, reset, verify, logout, email,
    verified, subscribe, code, typo, missing, outside, stamped, notExpansion, maybeNull, password];
}
`;

interface Recorded {
  readonly template: string;
  readonly method: string;
  readonly status: number;
  readonly body: unknown;
}

function run(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('openapi-typescript on a real project document, compiled with tsc', () => {
  let server: TestServer;
  let project: TestProject;
  let dir: string;
  const recorded: Recorded[] = [];
  /** Sends a request (checked against the document by test-server.ts) and records a JSON answer for tsc. */
  const call = async (
    method: string,
    route: string,
    template: string,
    options: RequestOptions = {},
    expected?: number,
  ) => {
    const response = await server.request(method, `/p/${project.id}${route}`, options);
    if (expected !== undefined) assert.equal(response.status, expected, `${method} ${route}: ${response.text}`);
    if (response.body !== undefined && /^application\/json/.test(response.headers.get('content-type') ?? '')) {
      recorded.push({ template, method: method.toLowerCase(), status: response.status, body: response.body });
    }
    return response;
  };

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await applySchema(server, project, SCHEMA);
    dir = mkdtempSync(path.join(tmpdir(), 'rowbase-openapi-ts-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the types compile a program using every endpoint, refuse each marked misuse, accept every answer', async () => {
    const admin = { headers: project.admin };
    const redirect = await server.request('PUT', `/p/${project.id}/v1/redirect-origins`, {
      headers: project.admin,
      body: { allowed_redirect_origins: ['https://app.example.com'] },
    });
    assert.equal(redirect.status, 200, redirect.text);

    // Auth, in the order an app meets it.
    const signup = await call(
      'POST',
      '/auth/signup',
      '/auth/signup',
      { body: { email: 'ada@example.com', password: PASSWORD, nickname: 'ada' } },
      201,
    );
    const user = bearer(signup.body.token);
    await call('POST', '/auth/resend-verification', '/auth/resend-verification', { headers: user }, 200);
    await call(
      'GET',
      `/auth/verify?token=${encodeURIComponent(tokenIn(await waitForMail(server, project, 'ada@example.com', 2)))}`,
      '/auth/verify',
      {},
      200,
    );
    const login = await call(
      'POST',
      '/auth/login',
      '/auth/login',
      { body: { email: 'ada@example.com', password: PASSWORD } },
      200,
    );
    await call('POST', '/auth/refresh', '/auth/refresh', { body: { refresh_token: login.body.refresh_token } }, 200);
    await call('GET', '/auth/me', '/auth/me', { headers: user }, 200);
    const sessions = await call('GET', '/auth/sessions', '/auth/sessions', { headers: user }, 200);
    const other = sessions.body.data.find((s: { current: boolean }) => !s.current);
    await call('DELETE', `/auth/sessions/${other.id}`, '/auth/sessions/{session_id}', { headers: user }, 204);
    const changed = await call(
      'POST',
      '/auth/change-password',
      '/auth/change-password',
      { headers: user, body: { current_password: PASSWORD, new_password: `${PASSWORD} 2` } },
      200,
    );
    await call(
      'POST',
      '/auth/forgot-password',
      '/auth/forgot-password',
      { body: { email: 'ada@example.com', redirect_url: 'https://app.example.com/reset' } },
      200,
    );
    const resetMail = await waitForMail(server, project, 'ada@example.com', 3);
    await call(
      'POST',
      '/auth/reset-password',
      '/auth/reset-password',
      { body: { token: tokenIn(resetMail), new_password: `${PASSWORD} 3` } },
      200,
    );
    await call(
      'POST',
      '/auth/login',
      '/auth/login',
      { body: { email: 'ada@example.com', password: 'wrong password' } },
      401,
    );
    await call('POST', '/auth/logout?scope=local', '/auth/logout', { headers: bearer(changed.body.token) });

    // Data API on every table, with expand both ways.
    const memberId = signup.body.user.id;
    const task = await call(
      'POST',
      '/api/tasks',
      '/api/tasks',
      { ...admin, body: { title: 'Buy milk', owner: memberId, due: '2026-12-01', meta: { tags: ['a'] }, score: 1.5 } },
      201,
    );
    await call(
      'POST',
      '/api/tasks/bulk',
      '/api/tasks/bulk',
      {
        ...admin,
        body: [
          { title: 'Water plants', priority: 2 },
          { title: 'Call the bank', done: null },
        ],
      },
      201,
    );
    await call(
      'POST',
      '/api/comments',
      '/api/comments',
      { ...admin, body: { body: 'First', task: task.body.data.id } },
      201,
    );
    await call(
      'PATCH',
      `/api/tasks/${task.body.data.id}`,
      '/api/tasks/{row_id}',
      { ...admin, body: { done: true } },
      200,
    );
    await call(
      'GET',
      `/api/tasks?expand=${encodeURIComponent('owner,comments(task)')}&sort=-created_at&title=ilike.*milk*`,
      '/api/tasks',
      { headers: project.anon },
      200,
    );
    await call('GET', '/api/tasks?select=title,done&count=none&limit=1', '/api/tasks', { headers: project.anon }, 200);
    await call('GET', '/api/tasks?select=done,count()', '/api/tasks', { headers: project.anon }, 200);
    await call(
      'GET',
      `/api/tasks/${task.body.data.id}?expand=${encodeURIComponent('owner,comments(task)')}`,
      '/api/tasks/{row_id}',
      { headers: project.anon },
      200,
    );
    await call(
      'GET',
      `/api/members/${memberId}?expand=${encodeURIComponent('tasks(owner),tasks(owner).owner')}`,
      '/api/members/{row_id}',
      admin,
      200,
    );
    await call('GET', '/api/comments?expand=task.owner', '/api/comments', admin, 200);
    await call(
      'PATCH',
      `/api/members/${memberId}`,
      '/api/members/{row_id}',
      { ...admin, body: { nickname: 'ada2' } },
      200,
    );
    await call('GET', '/api/tasks', '/api/tasks', {}, 401);
    await call('GET', '/api/tasks?title=hello', '/api/tasks', admin, 400);
    await call('DELETE', `/api/tasks/${task.body.data.id}`, '/api/tasks/{row_id}', admin, 204);

    // Realtime: the subscription call (the stream itself is text/event-stream).
    const stream = await openStream(server.url, project.id);
    try {
      await call(
        'POST',
        '/realtime',
        '/realtime',
        { headers: project.anon, body: { client_id: stream.clientId, subscriptions: ['tasks'] } },
        200,
      );
    } finally {
      stream.close();
    }

    const document = await server.request('GET', `/p/${project.id}/v1/openapi.json`, admin);
    assert.equal(document.status, 200, document.text);
    writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(document.body)));
    const answers = recorded.map(
      (a, i) =>
        `export const answer${i}: Answer<${JSON.stringify(a.template)}, ` +
        `${JSON.stringify(a.method)}, ${a.status}> = ${JSON.stringify(a.body)};`,
    );
    writeFileSync(path.join(dir, 'program.ts'), `${PROGRAM}\n${answers.join('\n')}\n`);
    const compilerOptions = {
      noEmit: true,
      strict: true,
      target: 'ES2022',
      module: 'ES2022',
      moduleResolution: 'Bundler',
      lib: ['ES2022'],
      types: [],
    };
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['api.ts', 'program.ts'] }),
    );
    assert.ok(recorded.length >= 25, `answers recorded: ${recorded.length}`);
    assert.ok(
      new Set(recorded.map((a) => `${a.method} ${a.template}`)).size >= 17,
      'answers of every endpoint with a JSON answer',
    );

    const marked = await run([TSC, '-p', '.'], dir);
    assert.equal(marked.code, 0, `tsc refused the program or a recorded answer:\n${marked.output.slice(0, 4000)}`);
    writeFileSync(path.join(dir, 'program.ts'), `${PROGRAM.replaceAll('// @ts-expect-error', '//')}\n`);
    const unmarked = await run([TSC, '-p', '.'], dir);
    assert.equal(
      (unmarked.output.match(/error TS/g) ?? []).length,
      7,
      `each misuse is an error of its own:\n${unmarked.output.slice(0, 4000)}`,
    );
  });
});
