/**
 * Type-level tests of @rowbase/client, compiled (never run) by test/client/client-package.test.ts
 * against the package's built declarations. Each `@ts-expect-error` marks a line that must not
 * compile; if the SDK's types loosen, the directive goes unused and the compilation fails.
 */
import { createClient, RowbaseError, type BatchOperation, type Session } from '@rowbase/client';

// --- The shape `rowbase types` prints: one interface per table and role, then a type alias. ---
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
  title: string;
  done?: boolean;
  priority?: number | null;
  owner?: string | null;
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
export interface TasksRelations {
  owner: { row: UsersRow; relations: UsersRelations; many: false };
}
export interface UsersRelations {
  'tasks(owner)': { row: TasksRow; relations: TasksRelations; many: true };
}
export type Database = {
  tasks: { Row: TasksRow; Create: TasksCreate; Update: TasksUpdate; Relations: TasksRelations };
  users: {
    Row: UsersRow;
    Create: { email: string; password: string };
    Update: { nickname?: string | null };
    Relations: UsersRelations;
  };
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
  const page = await tasks.list({
    filter: 'done = false',
    sort: ['-created_at', 'title'],
    where: { done: 'eq.false' },
    limit: 10,
    offset: 0,
    count: 'none',
  });
  const total: number | null = page.meta.total;
  const done: boolean = page.data[0]!.done;
  const selected = await tasks.list({ select: ['title'] });
  const selectedTitle: string = selected.data[0]!.title;
  const selectedId: string = selected.data[0]!.id;
  const nickname: string | null | undefined = rowbase.auth.user?.nickname;
  const session: Session<UsersRow> | null = rowbase.auth.session;
  void [title, priority, total, done, selectedTitle, selectedId, nickname, session];

  // expand, typed by the generated relations: a reference is a row or null, table(column) a list, nested paths nest.
  const withOwner = await tasks.list({ expand: ['owner', 'owner.tasks(owner)'], select: ['title', 'owner'] });
  const ownerEmail: string | undefined = withOwner.data[0]!.expand.owner?.email;
  const ownersTasks: TasksRow[] | undefined = withOwner.data[0]!.expand.owner?.expand['tasks(owner)'];
  const listedTitle: string = withOwner.data[0]!.title;
  const one = await tasks.get(created.id, { expand: ['owner'] });
  const ownerNickname: string | null | undefined = one.expand.owner?.nickname;
  const users = rowbase.table('users');
  const reverse = await users.get(created.id, { expand: ['tasks(owner)'] });
  const firstTaskTitle: string | undefined = reverse.expand['tasks(owner)'][0]?.title;
  for await (const page of tasks.pages({ expand: ['owner'] })) void page.data[0]?.expand.owner?.email;
  // A comma-joined string is sent as it is (the rows' type then says nothing of expand).
  const joinedPaths = await tasks.list({ expand: 'owner' });
  void joinedPaths.data[0]?.title;
  // get without a list of paths keeps the generic shape: expand may be there, untyped.
  void (await tasks.get(created.id, { expand: 'owner' })).expand?.owner;
  // Two paths through one listing merge: each listed task carries its own typed expand.
  const usersWithTasks = await users.list({ expand: ['tasks(owner)', 'tasks(owner).owner'] });
  const ownersOfListed: (string | undefined)[] = usersWithTasks.data[0]!.expand['tasks(owner)'].map(
    (task) => task.expand.owner?.email,
  );
  // Type arguments written by hand (select's) leave expand unchecked by path, and the rows plain.
  const handWritten = await tasks.list<'title'>({ select: ['title'], expand: ['owner'] });
  const handWrittenTitle: string = handWritten.data[0]!.title;
  // An options object built beforehand keeps its paths as literals with `as const`.
  const prebuilt = { expand: ['owner'], limit: 5 } as const;
  const fromPrebuilt: string | undefined = (await tasks.list(prebuilt)).data[0]!.expand.owner?.email;
  void [
    ownerEmail,
    ownersTasks,
    listedTitle,
    ownerNickname,
    firstTaskTitle,
    ownersOfListed,
    handWrittenTitle,
    fromPrebuilt,
  ];
  // @ts-expect-error: an expand path the table does not have
  await tasks.list({ expand: ['ownr'] });
  // @ts-expect-error: a path four levels deep (at most 3)
  await tasks.list({ expand: ['owner.tasks(owner).owner.tasks(owner)'] });
  // @ts-expect-error: the expanded owner may be null (empty, gone, or hidden by a rule)
  void withOwner.data[0]!.expand.owner.email;
  // @ts-expect-error: a path not asked for is not on expand
  void one.expand.owner?.expand;
  // @ts-expect-error: a column the related table does not have
  void withOwner.data[0]!.expand.owner?.colour;
  // @ts-expect-error: a listed task's expand holds only what was asked below it
  void usersWithTasks.data[0]!.expand['tasks(owner)'][0]!.expand.colour;

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

// --- Batches: each operation typed by its table and method; each result by its operation. ---
export async function typedBatch(): Promise<void> {
  const results = await rowbase.batch([
    { method: 'POST', table: 'tasks', body: { title: 'a', priority: 1 } },
    { method: 'PATCH', table: 'users', id: 'u1', body: { nickname: 'ada' } },
    { method: 'DELETE', table: 'tasks', id: 't1' },
  ]);
  const createdTitle: string = results[0].body.data.title;
  const created: 201 = results[0].status;
  const nickname: string | null = results[1].body.data.nickname;
  const changed: 200 = results[1].status;
  const deleted: null = results[2].body;
  void [createdTitle, created, nickname, changed, deleted];
  // A list built beforehand types each result by the union of the operations.
  const built: BatchOperation<Database>[] = [{ method: 'DELETE', table: 'tasks', id: 't2' }];
  for (const result of await rowbase.batch(built)) void result.status;
  // @ts-expect-error: a required column missing in a batch create
  await rowbase.batch([{ method: 'POST', table: 'tasks', body: { done: true } }]);
  // @ts-expect-error: a value of the wrong type in a batch update
  await rowbase.batch([{ method: 'PATCH', table: 'tasks', id: 't1', body: { done: 'yes' } }]);
  // @ts-expect-error: a PATCH needs the id of its row
  await rowbase.batch([{ method: 'PATCH', table: 'tasks', body: { done: true } }]);
  // @ts-expect-error: a method a batch does not take
  await rowbase.batch([{ method: 'GET', table: 'tasks', id: 't1' }]);
  // @ts-expect-error: a table the database does not have
  await rowbase.batch([{ method: 'DELETE', table: 'nope', id: 't1' }]);
  // @ts-expect-error: a deleted row has no body
  void results[2].body.data;
}

// --- Realtime: topics name a table of the Database; events carry that table's Row, as table(name) returns it. ---
export function typedRealtime(): () => void {
  const stopAll = rowbase.realtime.subscribe('tasks', (event) => {
    if (event.action === 'reset') return;
    const title: string = event.record.title;
    const priority: number | null = event.record.priority;
    const action: 'create' | 'update' | 'delete' = event.action;
    void [title, priority, action, event.id];
    // @ts-expect-error: a column the table does not have
    void event.record.titel;
    // @ts-expect-error: a value typed by the row (title is a string)
    const wrong: number = event.record.title;
    void wrong;
  });
  const stopOne = rowbase.realtime.subscribe('tasks/0190f0c4-1', (event) => {
    if (event.action !== 'reset') void (event.record.done satisfies boolean);
  });
  const stopFiltered = rowbase.realtime.subscribe(`tasks?filter=${encodeURIComponent('done = false')}`, (event) => {
    if (event.action !== 'reset') void (event.record.owner satisfies string | null);
  });
  const stopUsers = rowbase.realtime.subscribe('users', (event) => {
    // @ts-expect-error: the reset event carries no record
    void event.record;
    if (event.action !== 'reset') void (event.record.email satisfies string);
  });
  // @ts-expect-error: a table the database does not have
  rowbase.realtime.subscribe('taskz', () => undefined);
  // @ts-expect-error: a row-id topic of a table the database does not have
  rowbase.realtime.subscribe('taskz/1', () => undefined);
  const usersHandler = (event: { action: 'create'; record: UsersRow; id: string } | { action: 'reset' }) => void event;
  // @ts-expect-error: the handler expects another table's row
  rowbase.realtime.subscribe('tasks', usersHandler);
  return () => {
    for (const stop of [stopAll, stopOne, stopFiltered, stopUsers]) stop();
  };
}

// --- Interfaces qualify as a Database too (the constraint is a mapped type, not an index signature). ---
interface InterfaceDatabase {
  notes: { Row: { id: string; body: string }; Create: { body: string }; Update: { body?: string } };
}
export async function interfaceDatabase(): Promise<string> {
  const notes = createClient<InterfaceDatabase>({
    url: 'http://127.0.0.1:8080',
    project: 'demo',
    apiKey: 'pk_x',
  }).table('notes');
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
  // Realtime without a Database: any topic, records of unknown columns.
  untyped.realtime.subscribe('anything?filter=a%3D1', (event) => {
    if (event.action === 'reset') return;
    const column: unknown = event.record.whatever;
    // @ts-expect-error: values are unknown until narrowed
    const narrowed: string = event.record.whatever;
    void [column, narrowed];
  })();
}

// --- Errors: one class with status, code, message, suggestion. ---
export function describeError(error: unknown): string {
  if (error instanceof RowbaseError) return `${error.status} ${error.code}: ${error.message} (${error.suggestion})`;
  return String(error);
}
