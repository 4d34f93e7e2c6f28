/**
 * The SDK typed by real `rowbase types` output: the declarations printed for a started server's
 * project (`--url --admin-key`) plug into `createClient<Database, UsersRow>`, right calls
 * compile (expand typed by the printed relations), and wrong table names, columns, value types
 * and expand paths are compile errors (contract §10).
 * Types do not depend on the engine (test/e2e/cli-openapi.test.ts runs `rowbase types` on both),
 * and three compilations are slow: @engine sqlite
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClientProject } from '../helpers/client-project.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const TSC = path.resolve('node_modules/typescript/bin/tsc');

function run(args: string[], cwd?: string): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
        output: `${stdout}${stderr}`,
        stdout,
      }),
    );
  });
}

/**
 * Uses of the generated Database through the SDK: the compiler must accept the right ones and refuse each marked one.
 */
const USAGE = `import { createClient } from '@rowbase/client';
import type { Database, UsersRow } from './db';

const rowbase = createClient<Database, UsersRow>({ url: 'http://127.0.0.1:8080', project: 'demo', apiKey: 'pk_x' });
const tasks = rowbase.table('tasks');

export async function use(): Promise<string> {
  const { user } = await rowbase.auth.signUp({ email: 'ada@example.com', password: 'correct horse battery' });
  const created = await tasks.create({ title: 'Buy milk', owner: user.id, priority: 2 });
  await tasks.update(created.id, { done: true });
  await tasks.bulk([{ title: 'a' }, { title: 'b', done: null }]);
  const { data } = await tasks.list({
    sort: ['-priority', 'title'],
    select: ['title', 'done'],
    where: { owner: 'eq.' + user.id },
  });
  const name: string | null = (await rowbase.auth.me()).name;
  void name;
  // expand, typed by the printed relations: notes.task is a reference, tasks get notes(task) back.
  const notes = rowbase.table('notes');
  const withTask = await notes.list({ expand: ['task', 'task.notes(task)'] });
  const taskTitle: string | undefined = withTask.data[0]!.expand.task?.title;
  const siblings: number | undefined = withTask.data[0]!.expand.task?.expand['notes(task)'].length;
  const task = await tasks.get(created.id, { expand: ['notes(task)'] });
  const firstNote: string | null | undefined = task.expand['notes(task)'][0]?.text;
  void [taskTitle, siblings, firstNote];
  // Realtime events carry the subscribed table's printed row.
  const stop = rowbase.realtime.subscribe('notes', (event) => {
    if (event.action !== 'reset') void (event.record.text satisfies string | null);
  });
  stop();
  // @ts-expect-error a realtime topic of a table the project does not have
  rowbase.realtime.subscribe('notez', () => undefined);
  // @ts-expect-error an expand path the table does not have
  await notes.list({ expand: ['tsk'] });
  // @ts-expect-error the expanded task may be null
  void withTask.data[0]!.expand.task.title;
  // @ts-expect-error a table the project does not have
  rowbase.table('taskz');
  // @ts-expect-error a column the table does not have
  await tasks.create({ title: 'x', titel: 'typo' });
  // @ts-expect-error a value of the wrong type
  await tasks.create({ title: 5 });
  // @ts-expect-error the required title left out
  await tasks.create({ done: true });
  // @ts-expect-error a wrong type in an update
  await tasks.update(created.id, { priority: 'high' });
  // @ts-expect-error sorting by a column the table does not have
  await tasks.list({ sort: ['-prio'] });
  // @ts-expect-error a column not selected
  void data[0]!.priority;
  return data[0]!.title;
}
`;

let server: TestServer;
let project: TestProject;
let dir: string;
before(async () => {
  server = await startTestServer();
  project = await createClientProject(server);
  // A table that references tasks: its relations (and the reverse one on tasks) are printed too.
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'text', type: 'text' },
      { name: 'task', type: 'text', references: { table: 'tasks', on_delete: 'cascade' } },
    ],
  });
  dir = mkdtempSync(path.join(tmpdir(), 'rowbase-client-types-'));
  const build = await run([TSC, '-p', 'packages/client/tsconfig.json', '--outDir', path.join(dir, 'sdk')]);
  assert.equal(build.code, 0, build.output);
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('@rowbase/client typed by `rowbase types`', () => {
  it('the printed Database types the client: right calls compile, every marked misuse is refused', async () => {
    const types = await run([
      '--import',
      'tsx',
      'src/main.ts',
      'types',
      '--project',
      project.id,
      '--url',
      server.url,
      '--admin-key',
      project.adminKey,
    ]);
    assert.equal(types.code, 0, types.output);
    assert.match(
      types.stdout,
      /tasks: \{ Row: TasksRow; Create: TasksCreate; Update: TasksUpdate; Relations: TasksRelations \};/,
    );
    assert.match(
      types.stdout,
      /export interface NotesRelations \{\n {2}task: \{ row: TasksRow; relations: TasksRelations; many: false \};\n\}/,
    );
    assert.match(
      types.stdout,
      new RegExp(
        String.raw`export interface TasksRelations \{\n {2}"notes\(task\)": ` +
          String.raw`\{ row: NotesRow; relations: NotesRelations; many: true \};\n\}`,
      ),
    );
    const compile = async (usage: string) => {
      const where = mkdtempSync(path.join(dir, 'tsc-'));
      writeFileSync(path.join(where, 'db.ts'), types.stdout);
      writeFileSync(path.join(where, 'usage.ts'), usage);
      const compilerOptions = {
        noEmit: true,
        strict: true,
        target: 'ES2022',
        module: 'ES2022',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM'],
        types: [],
        paths: { '@rowbase/client': [path.join(dir, 'sdk', 'index.d.ts')] },
      };
      writeFileSync(
        path.join(where, 'tsconfig.json'),
        JSON.stringify({ compilerOptions, files: ['db.ts', 'usage.ts'] }),
      );
      return run([TSC, '-p', '.'], where);
    };
    const marked = await compile(USAGE);
    assert.equal(marked.code, 0, `tsc refused:\n${marked.output}`);
    const unmarked = await compile(USAGE.replaceAll('// @ts-expect-error', '//'));
    assert.equal(
      (unmarked.output.match(/error TS/g) ?? []).length,
      10,
      `each misuse is an error of its own:\n${unmarked.output}`,
    );
  });
});
