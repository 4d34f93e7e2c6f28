/**
 * Type-level tests of @rowbase/client, compiled (never run) by test/client/client-package.test.ts
 * against the package's built declarations. Each `@ts-expect-error` marks a line that must not
 * compile; if the SDK's types loosen, the directive goes unused and the compilation fails.
 */
import { createClient, RowbaseError, type Session } from '@rowbase/client';

// --- The shape `rowbase types` prints: one interface per table and role, then a type alias. ---
export interface TasksRow {
  id: string;
  created_at: string;
  updated_at: string;
  title: string;
  done: boolean;
  priority: number | null;
}
export interface TasksCreate {
  title: string;
  done?: boolean;
  priority?: number | null;
}
export interface TasksUpdate {
  title?: string;
  done?: boolean;
  priority?: number | null;
}
export interface UsersRow {
  id: string;
  email: string;
  email_verified: boolean;
  created_at: string;
  updated_at: string;
  nickname: string | null;
}
export type Database = {
  tasks: { Row: TasksRow; Create: TasksCreate; Update: TasksUpdate };
  users: { Row: UsersRow; Create: { email: string; password: string }; Update: { nickname?: string | null } };
};

const rowbase = createClient<Database, UsersRow>({ url: 'http://127.0.0.1:8080', project: 'demo', apiKey: 'pk_x' });
const tasks = rowbase.table('tasks');

export async function typedCalls(): Promise<void> {
  const created: TasksRow = await tasks.create({ title: 'Buy milk', priority: 2 });
  const title: string = created.title;
  const priority: number | null = (await tasks.get(created.id)).priority;
  await tasks.update(created.id, { done: true });
  await tasks.bulk([{ title: 'a' }, { title: 'b', done: false }]);
  await tasks.delete(created.id);
  const page = await tasks.list({ filter: 'done = false', sort: ['-created_at', 'title'], where: { done: 'eq.false' }, limit: 10, offset: 0, count: 'none' });
  const total: number | null = page.meta.total;
  const done: boolean = page.data[0]!.done;
  const selected = await tasks.list({ select: ['title'] });
  const selectedTitle: string = selected.data[0]!.title;
  const selectedId: string = selected.data[0]!.id;
  const nickname: string | null | undefined = rowbase.auth.user?.nickname;
  const session: Session<UsersRow> | null = rowbase.auth.session;
  void [title, priority, total, done, selectedTitle, selectedId, nickname, session];

  // @ts-expect-error: a column the table does not have
  await tasks.create({ title: 'x', titel: 'typo' });
  // @ts-expect-error: a value of the wrong type
  await tasks.create({ title: 3 });
  // @ts-expect-error: the required column is missing
  await tasks.create({ done: true });
  // @ts-expect-error: a value of the wrong type in an update
  await tasks.update(created.id, { done: 'yes' });
  // @ts-expect-error: a column the table does not have, in an update
  await tasks.update(created.id, { colour: 'red' });
  // @ts-expect-error: a bad row in a bulk create
  await tasks.bulk([{ title: 'fine' }, { titel: 'typo' }]);
  // @ts-expect-error: sorting by a column the table does not have
  await tasks.list({ sort: ['-titel'] });
  // @ts-expect-error: selecting a column the table does not have
  await tasks.list({ select: ['colour'] });
  // @ts-expect-error: a shorthand filter on a column the table does not have
  await tasks.list({ where: { colour: 'eq.red' } });
  // @ts-expect-error: a column left out by select is not on the result
  void selected.data[0]!.done;
  // @ts-expect-error: a table the database does not have
  rowbase.table('nope');
}

// --- Interfaces qualify as a Database too (the constraint is a mapped type, not an index signature). ---
interface InterfaceDatabase {
  notes: { Row: { id: string; body: string }; Create: { body: string }; Update: { body?: string } };
}
export async function interfaceDatabase(): Promise<string> {
  const notes = createClient<InterfaceDatabase>({ url: 'http://127.0.0.1:8080', project: 'demo', apiKey: 'pk_x' }).table('notes');
  // @ts-expect-error: wrong value type
  await notes.create({ body: 1 });
  return (await notes.create({ body: 'hello' })).body;
}

// --- Something that is not a Database is refused. ---
// @ts-expect-error: a table entry without Row/Create/Update
createClient<{ tasks: { Row: string } }>({ url: 'http://127.0.0.1:8080', project: 'demo', apiKey: 'pk_x' });

// --- Without a Database type: any table and column is accepted, values are unknown. ---
export async function untypedCalls(): Promise<void> {
  const untyped = createClient({ url: 'http://127.0.0.1:8080', project: 'demo', apiKey: 'pk_x' });
  const row = await untyped.table('anything').create({ whatever: 1, nested: { ok: true } });
  const value: unknown = row.whatever;
  // @ts-expect-error: values are unknown until narrowed
  const text: string = row.whatever;
  const { data } = await untyped.table('anything').list({ select: ['a', 'b'], sort: '-a', where: { a: 'eq.1' } });
  void [value, text, data[0]?.c];
}

// --- Errors: one class with status, code, message, suggestion. ---
export function describeError(error: unknown): string {
  if (error instanceof RowbaseError) return `${error.status} ${error.code}: ${error.message} (${error.suggestion})`;
  return String(error);
}
