/**
 * `rowbase openapi` and `rowbase types` as real processes, on the storage of the engine under
 * test (SQLite DATA_DIR, or a fresh PostgreSQL database through DATABASE_URL) and through a
 * running server (--url --admin-key). The document passes a standard OpenAPI validator; the
 * declarations compile with the installed TypeScript (tsc --noEmit), and a wrong column name
 * or value type is a compile error (each marked @ts-expect-error, which tsc refuses when unused).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { EVERY_OPTION_SCHEMA } from '../helpers/openapi-fixtures.js';
import { PROCESS_PLATFORM_KEY, startServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/test-database.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const TSC = path.resolve('node_modules', 'typescript', 'bin', 'tsc');

function exec(file: string, args: string[], env: Record<string, string | undefined>, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: env as NodeJS.ProcessEnv, cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Uses of the declarations a compiler must accept, and misuses it must refuse. */
const USAGE = `import type { AppUsersCreate, AppUsersRow, Database, TasksCreate, TasksRow, TasksUpdate } from './db';

type Tasks = Database['tasks'];
const now = '2026-01-31T09:30:00.000Z';
export const row: Tasks['Row'] = {
  id: 'a', created_at: now, updated_at: now, title: 't', status: 'on hold', label: null, done: null, priority: 3,
  count: null, score: 1.5, ratio: null, code: null, owner: null, due: null, started_at: now,
  meta: { any: ['json', 1, null] }, config: 1,
};
export const create: TasksCreate = { title: 'Buy milk', started_at: '2026-01-31' };
export const update: Tasks['Update'] = { done: true, status: null };
export const sameRow: TasksRow = row;
export const user: AppUsersRow = {
  id: 'u', created_at: now, updated_at: now, email: 'ada@example.com', email_verified: false, nickname: null,
};
export const signupLike: AppUsersCreate = { email: 'ada@example.com', password: 'correct horse battery' };

// @ts-expect-error a column the table does not have
export const wrongName: TasksCreate = { titel: 'x', started_at: now };
// @ts-expect-error a value of the wrong type
export const wrongType: TasksCreate = { title: 5, started_at: now };
// @ts-expect-error a value outside the enum
export const wrongEnum: TasksUpdate = { status: 'pending' };
// @ts-expect-error a required column left out of a create
export const missing: TasksCreate = { started_at: now };
// @ts-expect-error null in a required column
export const nullTitle: TasksUpdate = { title: null };
// @ts-expect-error the server sets created_at
export const systemColumn: TasksCreate = { title: 't', started_at: now, created_at: now };
// @ts-expect-error a row never carries the password
export const password: AppUsersRow['password'] = 'secret';
// @ts-expect-error a table the project does not have
export type Missing = Database['taskz'];
`;

/** The declarations typing @rowbase/client (contract §10), as an app would use them. */
const CLIENT_USAGE = `import { createClient } from '@rowbase/client';
import type { Database, TasksRow } from './db';

const rowbase = createClient<Database>({ url: 'http://127.0.0.1:8080', project: 'types-demo', apiKey: 'pk_x' });
export async function use(): Promise<TasksRow> {
  const created = await rowbase.table('tasks').create({ title: 'Buy milk', started_at: '2026-01-31' });
  const title: string = created.title;
  void title;
  // @ts-expect-error a column the table does not have
  await rowbase.table('tasks').update(created.id, { titel: 'x' });
  // @ts-expect-error a table the project does not have
  rowbase.table('taskz');
  return created;
}
`;

describe('rowbase openapi / rowbase types', () => {
  let dir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string | undefined>;
  let adminKey: string;
  const projectId = 'types-demo';
  const rowbase = (args: string[], extra: Record<string, string> = {}) =>
    exec(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { ...env, ...extra });
  const compile = async (files: Record<string, string>): Promise<Run> => {
    const where = mkdtempSync(path.join(dir, 'tsc-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(where, name), text);
    // The SDK from its sources in this repository, as a bundler would resolve the package.
    const paths = { '@rowbase/client': [path.resolve('packages', 'client', 'src', 'index.ts')] };
    const compilerOptions = {
      noEmit: true,
      strict: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      types: [],
      skipLibCheck: true,
      lib: ['ES2022', 'DOM'],
      allowImportingTsExtensions: true,
      paths,
    };
    writeFileSync(path.join(where, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
    return exec(process.execPath, [TSC, '-p', '.'], { PATH: process.env.PATH }, where);
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rowbase-types-'));
    database = testEngine() === 'postgres' ? await createTestDatabase() : undefined;
    env = {
      ...process.env,
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'warn',
      PLATFORM_KEY: PROCESS_PLATFORM_KEY,
      ...(database && { DATABASE_URL: database.url }),
    };
    const created = await rowbase(['projects', 'create', '--name', 'Types', '--id', projectId, '--json']);
    assert.equal(created.code, 0, created.stderr);
    const parsed = JSON.parse(created.stdout);
    adminKey = (parsed.data ?? parsed).admin_key;
    const schemaFile = path.join(dir, 'schema.json');
    writeFileSync(schemaFile, JSON.stringify({ tables: Object.fromEntries(EVERY_OPTION_SCHEMA) }));
    const applied = await rowbase(['schema', 'apply', '--project', projectId, schemaFile]);
    assert.equal(applied.code, 0, applied.stderr);
  });
  after(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rowbase openapi --project ID prints a document @readme/openapi-parser accepts', async () => {
    const run = await rowbase(['openapi', '--project', projectId]);
    assert.equal(run.code, 0, run.stderr);
    const document = JSON.parse(run.stdout);
    const result = await validate(document);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    assert.ok(document.paths['/api/tasks/{row_id}'] && document.paths['/auth/login']);
  });

  it('rowbase types --project ID prints declarations that compile; misuses are compile errors', async () => {
    const run = await rowbase(['types', '--project', projectId]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /export type Database = \{/);
    assert.match(
      run.stdout,
      /tasks: \{ Row: TasksRow; Create: TasksCreate; Update: TasksUpdate; Relations: TasksRelations \};/,
    );
    const compiled = await compile({ 'db.ts': run.stdout, 'usage.ts': USAGE, 'client.ts': CLIENT_USAGE });
    assert.equal(compiled.code, 0, `tsc refused:\n${compiled.stdout}${compiled.stderr}`);
    // Without the @ts-expect-error markers, each misuse is an error of its own.
    const unmarked = await compile({ 'db.ts': run.stdout, 'usage.ts': USAGE.replaceAll('// @ts-expect-error', '//') });
    assert.equal(unmarked.code, 2);
    assert.equal((unmarked.stdout.match(/error TS/g) ?? []).length, 8, unmarked.stdout);
  });

  it('an unknown project → exit 1 with PROJECT_NOT_FOUND; no --project → exit 2 with the usage', async () => {
    const unknown = await rowbase(['types', '--project', 'no-such-project', '--json']);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stderr).error.code, 'PROJECT_NOT_FOUND');
    const usage = await rowbase(['openapi']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--project ID/);
  });

  it('--url URL --admin-key KEY reads a running server: the same declarations, the served document', async () => {
    const local = await rowbase(['types', '--project', projectId]);
    const server = await startServerProcess(env.DATA_DIR!, database ? { DATABASE_URL: database.url } : {});
    try {
      const remote = await rowbase(['types', '--project', projectId, '--url', server.url, '--admin-key', adminKey]);
      assert.equal(remote.code, 0, remote.stderr);
      assert.equal(remote.stdout, local.stdout);
      const document = await rowbase(['openapi', '--project', projectId, '--url', server.url], {
        ROWBASE_ADMIN_KEY: adminKey,
      });
      assert.equal(document.code, 0, document.stderr);
      assert.ok(JSON.parse(document.stdout).paths['/api/tasks']);
      const refused = await rowbase([
        'openapi',
        '--project',
        projectId,
        '--url',
        server.url,
        '--admin-key',
        'sk_wrong',
        '--json',
      ]);
      assert.equal(refused.code, 1);
      assert.equal(JSON.parse(refused.stderr).error.code, 'AUTH_INVALID_KEY');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
