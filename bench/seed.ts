/**
 * Seeds the benchmark project through Rowbase's own HTTP API: the platform API creates the
 * project, the schema API declares the tables, and the bulk endpoint writes every row.
 * All rows of one bulk request share a created_at, so the tables that lists sort by
 * created_at are written in small batches: ties would make every page sort a whole batch,
 * which is not what rows written over time look like.
 */
import { call, expectStatus } from './http-client.js';
import { DOCS } from './search.js';
import {
  BATCH_GROUP_ROWS,
  BATCH_GROUPS,
  BATCHES,
  batchRow,
  BENCH_TABLES,
  COMMENTS,
  eventRow,
  EVENTS,
  INBOX,
  itemRow,
  ITEMS,
  NOTES,
  POST_TOPICS,
  POSTS,
  RELATION_TABLES,
  STOCK,
  STOCK_ROWS,
  stockRow,
  USER_PASSWORD,
  userEmail,
  USERS,
} from './schema.js';

export const BENCH_PROJECT = 'bench';
/** Rows per request: items have 10 categories, so a category's page has ties of 10 rows at most. */
const ITEM_BATCH = 100;
/** Events have 100 kinds: 1,000-row batches give ties of 10 rows per kind. */
const EVENT_BATCH = 1_000;
/** Notes are read by id only; the largest batch the contract allows. */
const NOTE_BATCH = 10_000;
/** Comments per post: the reverse expansion `comments(post)` embeds this many rows per post. */
export const COMMENTS_PER_POST = 3;

/** What the scenarios need to know about the seeded data. */
export interface SeededProject {
  readonly projectId: string;
  readonly adminKey: string;
  readonly publishableKey: string;
  readonly itemIds: readonly string[];
  readonly users: readonly { readonly id: string; readonly email: string }[];
  /** Note ids by owner id. */
  readonly notesByUser: ReadonlyMap<string, readonly string[]>;
  readonly eventRows: number;
  /** Rows of `docs` the search scenario reads (0 when not seeded; generated after seeding, see bench/search.ts). */
  readonly searchRows: number;
  /** Rows of `posts` (0 when not seeded). */
  readonly postRows: number;
  /** Seconds spent seeding, by step. */
  readonly timings: Readonly<Record<string, number>>;
}

export interface SeedOptions {
  readonly items: number;
  readonly users: number;
  readonly notesPerUser: number;
  readonly events: number;
  /** Rows of `posts` (and 3 comments per post) for the expand scenario; 0 or absent: the tables are not created. */
  readonly posts?: number;
  /** Rows of `docs` for the search scenario: the table is declared here, its rows generated in SQL afterwards. */
  readonly searchRows?: number;
  /** Called after every events batch with the rows written so far. */
  readonly onProgress?: (rows: number) => void;
}

async function timed<T>(timings: Record<string, number>, step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  timings[step] = (performance.now() - started) / 1000;
  return result;
}

/** Writes `count` rows made by `row(n)` in bulk requests of `batch` rows, two in flight; returns their ids. */
async function bulkInsert(
  base: string,
  headers: Record<string, string>,
  table: string,
  batch: number,
  count: number,
  row: (n: number) => Record<string, unknown>,
  onProgress?: (rows: number) => void,
): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  let done = 0;
  // Two in flight: the harness builds the next batch while the server writes this one.
  const lane = async () => {
    while (next < count) {
      const start = next;
      const size = Math.min(batch, count - start);
      next += size;
      const rows = Array.from({ length: size }, (_, i) => row(start + i));
      const response = await expectStatus(201, base, 'POST', `/p/${BENCH_PROJECT}/api/${table}/bulk`, headers, rows);
      (response.body.data as { id: string }[]).forEach((created, i) => {
        ids[start + i] = created.id;
      });
      done += size;
      onProgress?.(done);
    }
  };
  await Promise.all([lane(), lane()]);
  return ids;
}

/** Creates the project, its tables and rows. Throws with the server's answer when a step fails. */
export async function seedBenchProject(
  base: string,
  platformKey: string,
  options: SeedOptions,
): Promise<SeededProject> {
  const timings: Record<string, number> = {};
  const created = await timed(timings, 'project and tables', async () => {
    const project = await expectStatus(
      201,
      base,
      'POST',
      '/v1/projects',
      { 'x-platform-key': platformKey },
      { name: 'Benchmarks', id: BENCH_PROJECT },
    );
    const admin = { 'x-admin-key': project.body.data.admin_key as string };
    for (const table of [...BENCH_TABLES, ...(options.posts ? RELATION_TABLES : [])])
      await expectStatus(201, base, 'PUT', `/p/${BENCH_PROJECT}/v1/tables/${table.name}`, admin, table.definition);
    if (options.searchRows)
      await expectStatus(201, base, 'PUT', `/p/${BENCH_PROJECT}/v1/tables/docs`, admin, DOCS.definition);
    return project.body.data as { admin_key: string; publishable_key: string };
  });
  const admin = { 'x-admin-key': created.admin_key };

  const itemIds = await timed(timings, `${ITEMS.name} (${options.items} rows)`, () =>
    bulkInsert(base, admin, ITEMS.name, ITEM_BATCH, options.items, itemRow),
  );
  await timed(timings, `${INBOX.name} (1 row)`, () => bulkInsert(base, admin, INBOX.name, 1, 1, itemRow));
  await timed(timings, `${STOCK.name} (${STOCK_ROWS} rows)`, () =>
    bulkInsert(base, admin, STOCK.name, STOCK_ROWS, STOCK_ROWS, (n) => stockRow(n)),
  );
  const users = await timed(timings, `${USERS.name} (${options.users} rows, argon2id)`, async () => {
    const rows = Array.from({ length: options.users }, (_, n) => ({
      email: userEmail(n),
      password: USER_PASSWORD,
      display_name: `User ${n}`,
    }));
    const response = await expectStatus(201, base, 'POST', `/p/${BENCH_PROJECT}/api/${USERS.name}/bulk`, admin, rows);
    return (response.body.data as { id: string; email: string }[]).map(({ id, email }) => ({ id, email }));
  });
  const notesByUser = await timed(timings, `${NOTES.name} (${options.users * options.notesPerUser} rows)`, async () => {
    const ids = await bulkInsert(base, admin, NOTES.name, NOTE_BATCH, users.length * options.notesPerUser, (n) => ({
      owner: users[n % users.length]!.id,
      body: `note ${n}`,
    }));
    const byUser = new Map<string, string[]>(users.map((u) => [u.id, []]));
    for (const [n, id] of ids.entries()) byUser.get(users[n % users.length]!.id)!.push(id);
    return byUser;
  });
  const batchRows = BATCH_GROUPS * BATCH_GROUP_ROWS;
  await timed(timings, `${BATCHES.name} (${batchRows} rows)`, () =>
    bulkInsert(base, admin, BATCHES.name, ITEM_BATCH, batchRows, batchRow),
  );
  const posts = options.posts ?? 0;
  if (posts > 0) {
    const postIds = await timed(timings, `${POSTS.name} (${posts} rows)`, () =>
      bulkInsert(base, admin, POSTS.name, ITEM_BATCH, posts, (n) => ({
        title: `Post number ${n}`,
        topic: `t${n % POST_TOPICS}`,
        author: itemIds[(n * 7) % itemIds.length],
      })),
    );
    await timed(timings, `${COMMENTS.name} (${posts * COMMENTS_PER_POST} rows)`, () =>
      bulkInsert(base, admin, COMMENTS.name, NOTE_BATCH, posts * COMMENTS_PER_POST, (n) => ({
        post: postIds[n % posts],
        body: `comment ${n}`,
      })),
    );
  }
  await timed(timings, `${EVENTS.name} (${options.events} rows)`, () =>
    bulkInsert(base, admin, EVENTS.name, EVENT_BATCH, options.events, eventRow, options.onProgress),
  );

  return {
    projectId: BENCH_PROJECT,
    adminKey: created.admin_key,
    publishableKey: created.publishable_key,
    itemIds,
    users,
    notesByUser,
    eventRows: options.events,
    searchRows: options.searchRows ?? 0,
    postRows: posts,
    timings,
  };
}

/** A signed-in benchmark user. */
export interface Session {
  readonly userId: string;
  readonly email: string;
  readonly token: string;
  readonly refreshToken: string;
}

/**
 * Logs every user in once. Returns undefined when this build has no login endpoint yet
 * (404 NOT_FOUND: no such route), so the auth scenarios are skipped rather than failed.
 * Throws on any other failure.
 */
export async function signIn(base: string, seeded: SeededProject): Promise<Session[] | undefined> {
  const sessions: Session[] = [];
  for (const user of seeded.users) {
    const response = await call(
      base,
      'POST',
      `/p/${seeded.projectId}/auth/login`,
      {},
      { email: user.email, password: USER_PASSWORD },
    );
    if (response.status === 404 && response.body?.error?.code === 'NOT_FOUND') return undefined;
    if (response.status !== 200 || typeof response.body?.token !== 'string') {
      throw new Error(
        `login of ${user.email} failed: ${response.status} ${JSON.stringify(response.body).slice(0, 400)}`,
      );
    }
    sessions.push({
      userId: user.id,
      email: user.email,
      token: response.body.token,
      refreshToken: response.body.refresh_token,
    });
  }
  return sessions;
}
