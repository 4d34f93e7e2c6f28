/**
 * The benchmark scenarios of issue 5, as a table: what each one sends, to which servers,
 * with how many connections, and which targets it is judged against.
 */
import type { LoadRequest } from './load-spec.js';
import { expectStatus } from './http-client.js';
import {
  BATCH_GROUPS,
  BATCHES,
  EVENT_KINDS,
  EVENTS,
  INBOX,
  ITEM_CATEGORIES,
  itemRow,
  ITEMS,
  NOTES,
  POST_TOPICS,
  POSTS,
  STOCK,
  STOCK_ROWS,
  stockRow,
  USER_PASSWORD,
} from './schema.js';
import { COMMENTS_PER_POST, type SeededProject, type Session } from './seed.js';
import { DOCS, searchRequests } from './search.js';

export type Target = 'rowbase' | 'baseline';

/** What a scenario's requests are built from. */
export interface ScenarioContext {
  readonly seeded: SeededProject;
  /** Signed-in users; undefined when the build has no auth endpoints yet. */
  readonly sessions: readonly Session[] | undefined;
  /** The deep cursor of cursor-deep, found by its prepare step. */
  readonly deepCursor?: DeepCursor;
}

/** The `after` of page `page` (limit 20) of the 1M-row table, in creation order. */
export interface DeepCursor {
  readonly page: number;
  readonly after: string;
}

/** A goal a scenario is judged against. */
export type Goal =
  | { readonly kind: 'ratio'; readonly min: number }
  | { readonly kind: 'latency'; readonly stat: 'p50' | 'p99'; readonly maxMs: number }
  /** Against the scenario's own reference load on Rowbase, paired run by run. */
  | { readonly kind: 'reference-rps'; readonly min: number }
  | { readonly kind: 'reference-latency'; readonly stat: 'p50' | 'p99'; readonly maxRatio: number };

/**
 * A second load on the same Rowbase server that the scenario is compared with (expand vs the
 * same list without it; page 5,000 vs page 1), run alternating with the measured one.
 */
export interface ReferenceLoad {
  /** How the report names it, e.g. "without expand". */
  readonly label: string;
  requests(context: ScenarioContext): LoadRequest[];
}

/** A load that runs alongside the measured one (the login burst of the mixed scenario). */
export interface BackgroundLoad {
  readonly title: string;
  readonly connections: number;
  requests(context: ScenarioContext): LoadRequest[];
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly connections: number;
  /** Also run against the baseline, back to back, for the Rowbase/baseline ratio. */
  readonly baseline: boolean;
  /** Needs login (skipped until the build has POST /p/{id}/auth/login). */
  readonly needsAuth: boolean;
  requests(context: ScenarioContext, target: Target): LoadRequest[];
  readonly background?: BackgroundLoad;
  readonly reference?: ReferenceLoad;
  /** Set-up against the Rowbase server before the loads are built (not measured). */
  prepare?(context: ScenarioContext, base: string): Promise<ScenarioContext>;
  /**
   * Set-up before each run (warm-up or measured) of one series (not measured): what differs
   * between the measured load and its reference when the requests are the same.
   */
  beforeRun?(target: Target | 'reference', context: ScenarioContext, base: string): Promise<void>;
  /**
   * Settings of a Rowbase server of its own: the scenario runs after the others, on a server
   * restarted on the same data folder with these variables (one process owns a SQLite folder).
   */
  readonly rowbaseEnv?: Readonly<Record<string, string>>;
  readonly goals: readonly Goal[];
}

/** A fixed pseudo-random order (so runs are comparable) that is not insertion order. */
function shuffled<T>(values: readonly T[], seed = 42): T[] {
  const out = [...values];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const pk = (context: ScenarioContext) => ({ 'x-api-key': context.seeded.publishableKey });
const api = (context: ScenarioContext, table: string) => `/p/${context.seeded.projectId}/api/${table}`;
const auth = (context: ScenarioContext) => `/p/${context.seeded.projectId}/auth`;

function getById(context: ScenarioContext): LoadRequest[] {
  return shuffled(context.seeded.itemIds).map((id) => ({
    method: 'GET',
    path: `${api(context, ITEMS.name)}/${id}`,
    headers: pk(context),
  }));
}

function listPage(
  context: ScenarioContext,
  table: string,
  column: string,
  values: string[],
  count: boolean,
): LoadRequest[] {
  return values.map((value) => ({
    method: 'GET',
    path:
      `${api(context, table)}?filter=${encodeURIComponent(`${column} = '${value}'`)}&sort=-created_at&limit=20` +
      (count ? '' : '&count=none'),
    headers: pk(context),
  }));
}

const categories = Array.from({ length: ITEM_CATEGORIES }, (_, n) => `c${n}`);
const kinds = Array.from({ length: EVENT_KINDS }, (_, n) => `k${n}`);

const topics = Array.from({ length: POST_TOPICS }, (_, n) => `t${n}`);

/** `limit` posts (20 unless given) of one topic, newest first, without total; with `expand` when given. */
function postPages(context: ScenarioContext, expand: string | undefined, limit = 20): LoadRequest[] {
  return topics.map((topic) => ({
    method: 'GET',
    path:
      `${api(context, POSTS.name)}?filter=${encodeURIComponent(`topic = '${topic}'`)}` +
      `&sort=-created_at&limit=${limit}&count=none${expand ? `&expand=${encodeURIComponent(expand)}` : ''}`,
    headers: pk(context),
  }));
}

/**
 * Checks once that the expanded page really embeds what it names (an author and its
 * comments on every post), so the scenario cannot measure an expansion that finds nothing.
 */
async function checkExpand(context: ScenarioContext, base: string): Promise<ScenarioContext> {
  const [request] = postPages(context, 'author,comments(post)');
  const response = await expectStatus(200, base, 'GET', request!.path, pk(context));
  const rows = response.body.data as { expand?: { author?: unknown; 'comments(post)'?: unknown[] } }[];
  const bare = rows.filter(
    (row) => !row.expand?.author || (row.expand['comments(post)']?.length ?? 0) !== COMMENTS_PER_POST,
  );
  if (rows.length !== 20 || bare.length > 0)
    throw new Error(
      `the expanded page has ${rows.length} rows, ${bare.length} without an author or ${COMMENTS_PER_POST} comments`,
    );
  return context;
}

/** Page 1 of the 1M-row table in creation order (no sort, no total), or the page after `after`. */
function eventsPage(context: ScenarioContext, limit: number, after?: string): string {
  return `${api(context, EVENTS.name)}?limit=${limit}&count=none${after ? `&after=${encodeURIComponent(after)}` : ''}`;
}

/** The page cursor-deep measures: 5,000, or the last whole page before it on a smaller table (--quick). */
export const DEEP_PAGE = 5_000;

/**
 * Walks `meta.next_cursor` to the cursor of page `DEEP_PAGE` at 20 rows a page (the page after
 * row 99,980): 1,000 rows a request, then the rest; the cursor does not depend on the limit.
 */
async function findDeepCursor(context: ScenarioContext, base: string): Promise<ScenarioContext> {
  const page = Math.min(DEEP_PAGE, Math.floor((context.seeded.eventRows - 1) / 20));
  if (page < 2) throw new Error(`cursor-deep needs more than 40 rows in ${EVENTS.name}`);
  let skip = (page - 1) * 20;
  let after: string | undefined;
  while (skip > 0) {
    const limit = Math.min(1000, skip);
    const response = await expectStatus(200, base, 'GET', eventsPage(context, limit, after), pk(context));
    const cursor = response.body.meta?.next_cursor as unknown;
    if (typeof cursor !== 'string' || response.body.data.length !== limit)
      throw new Error(`cursor walk stopped early, ${skip} rows before page ${page}`);
    after = cursor;
    skip -= limit;
  }
  return { ...context, deepCursor: { page, after: after! } };
}

function logins(context: ScenarioContext): LoadRequest[] {
  return (context.sessions ?? []).map((s) => ({
    method: 'POST',
    path: `${auth(context)}/login`,
    body: JSON.stringify({ email: s.email, password: USER_PASSWORD }),
  }));
}

/** Every scenario, in the order they run: reads, then auth, then writes (which grow `inbox` only). */
/** Issue 14: expand costs one query per path for the whole page, not one per row. */
const EXPAND_LIST: Scenario = {
  id: 'expand-list',
  title: 'list 20 posts with expand=author,comments(post) (vs the same list without expand)',
  connections: 10,
  baseline: false,
  needsAuth: false,
  requests: (context) => postPages(context, 'author,comments(post)'),
  prepare: checkExpand,
  reference: { label: 'without expand', requests: (context) => postPages(context, undefined) },
  goals: [{ kind: 'reference-rps', min: 0.5 }],
};

/**
 * Issue 25: `data_rate_limits` set high enough never to trip costs at most 3% of a GET by id.
 * The same requests, on the same project of the same server (restarted with RATE_LIMITS=on),
 * with the limit set before each measured run and cleared before each reference run.
 */
const GET_BY_ID_RATE_LIMITED: Scenario = {
  id: 'get-by-id-rate-limited',
  title: 'GET one row by id with data_rate_limits set high (vs the same GET with no limit)',
  connections: 10,
  baseline: false,
  needsAuth: false,
  requests: getById,
  reference: { label: 'no limit', requests: getById },
  beforeRun: async (target, context, base) => {
    const limits = { reads_per_minute: 1_000_000_000, writes_per_minute: 1_000_000_000, per: 'address' };
    await expectStatus(
      200,
      base,
      'PATCH',
      `/p/${context.seeded.projectId}/v1/settings`,
      {
        'x-admin-key': context.seeded.adminKey,
      },
      { data_rate_limits: target === 'reference' ? null : limits },
    );
  },
  rowbaseEnv: { RATE_LIMITS: 'on' },
  goals: [{ kind: 'reference-rps', min: 0.97 }],
};

/**
 * Issue 25: update by filter, one UPDATE ... WHERE under the rule (update rule ""), 10,000 rows of
 * `batches` per request, the two groups in turn. Each touched row also logs its realtime event.
 */
const UPDATE_BY_FILTER: Scenario = {
  id: 'update-by-filter',
  title: 'update by filter, 10,000 rows per request (1 connection)',
  connections: 1,
  baseline: true,
  needsAuth: false,
  requests: (context) =>
    Array.from({ length: 10 }, (_, n) => ({
      method: 'PATCH',
      path: `${api(context, BATCHES.name)}?filter=${encodeURIComponent(`grp = 'g${n % BATCH_GROUPS}'`)}`,
      headers: pk(context),
      body: JSON.stringify({ score: n }),
    })),
  goals: [{ kind: 'ratio', min: 0.8 }],
};

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'get-by-id',
    title: 'GET one row by id (pk_ key, view rule "")',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: getById,
    goals: [
      { kind: 'ratio', min: 0.8 },
      { kind: 'latency', stat: 'p99', maxMs: 2 },
    ],
  },
  {
    // Issue 26: the baselines verify the token (HS256, jose), read the session and the password version, then the row.
    id: 'get-by-id-owner',
    title: 'GET one row by id (user token, view rule owner = @request.auth.id)',
    connections: 10,
    baseline: true,
    needsAuth: true,
    requests: (context) =>
      shuffled(
        (context.sessions ?? []).flatMap((session) =>
          (context.seeded.notesByUser.get(session.userId) ?? []).map((id) => ({
            method: 'GET' as const,
            path: `${api(context, NOTES.name)}/${id}`,
            headers: { authorization: `Bearer ${session.token}` },
          })),
        ),
      ),
    goals: [{ kind: 'ratio', min: 0.8 }],
  },
  {
    // Issue 26: each user's first 20 notes (of 500) with their total, under list rule owner = @request.auth.id.
    id: 'list-owner',
    title: 'list 20 rows with total (user token, list rule owner = @request.auth.id)',
    connections: 10,
    baseline: true,
    needsAuth: true,
    requests: (context) =>
      (context.sessions ?? []).map((session) => ({
        method: 'GET',
        path: `${api(context, NOTES.name)}?limit=20`,
        headers: { authorization: `Bearer ${session.token}` },
      })),
    goals: [{ kind: 'ratio', min: 0.8 }],
  },
  {
    id: 'list-total',
    title: 'list 20 rows, filter + sort=-created_at, with total',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: (context) => listPage(context, ITEMS.name, 'category', categories, true),
    goals: [{ kind: 'ratio', min: 0.8 }],
  },
  {
    id: 'list-no-count',
    title: 'list 20 rows, filter + sort=-created_at, count=none',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: (context) => listPage(context, ITEMS.name, 'category', categories, false),
    goals: [{ kind: 'ratio', min: 0.8 }],
  },
  {
    id: 'big-list-page',
    title: '1M-row table: indexed filtered list page (count=none)',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: (context) => listPage(context, EVENTS.name, 'kind', shuffled(kinds), false),
    goals: [{ kind: 'latency', stat: 'p50', maxMs: 5 }],
  },
  {
    id: 'big-list-total',
    title: '1M-row table: indexed filtered list page with its total',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: (context) => listPage(context, EVENTS.name, 'kind', shuffled(kinds), true),
    goals: [],
  },
  {
    // Issue 14: aggregates group under the list rule; the index on kind serves the grouping.
    // One connection: the target is the wait of one caller. The server answers one request at a
    // time on its core, so with 4 connections each waits for the 3 before it (p50 = 4 x the query).
    id: 'big-aggregate',
    title: '1M-row table: select=kind,count() grouped (100 groups)',
    connections: 1,
    baseline: false,
    needsAuth: false,
    requests: (context) => [
      { method: 'GET', path: `${api(context, EVENTS.name)}?select=kind,count()&limit=100`, headers: pk(context) },
    ],
    goals: [{ kind: 'latency', stat: 'p50', maxMs: 300 }],
  },
  {
    // No target: the same searches one at a time, so p50 is the time one search takes; with 10
    // connections on one core (the scenario after this) each also waits for the 9 before it.
    id: 'search-one',
    title: '1M-row table: the search scenario with 1 connection (the latency of one search)',
    connections: 1,
    baseline: false,
    needsAuth: false,
    requests: (context) => searchRequests(api(context, DOCS.name), pk(context), context.seeded.searchRows),
    goals: [],
  },
  {
    id: 'search',
    title: '1M-row table: full-text search=, most relevant 20 with total (words, phrase, -word, or)',
    connections: 10,
    baseline: false,
    needsAuth: false,
    requests: (context) => searchRequests(api(context, DOCS.name), pk(context), context.seeded.searchRows),
    goals: [
      { kind: 'latency', stat: 'p50', maxMs: 50 },
      { kind: 'latency', stat: 'p99', maxMs: 200 },
    ],
  },
  EXPAND_LIST,
  GET_BY_ID_RATE_LIMITED,
  {
    // No target: expand-list with nothing kept between requests, as every request after a
    // write to the project is (and every request on PostgreSQL): what the expansion's reads cost.
    ...EXPAND_LIST,
    id: 'expand-list-uncached',
    title:
      'list 20 posts with expand=author,comments(post), no rows ' +
      'kept (EXPAND_CACHE_MB=0) (vs the same list without expand)',
    rowbaseEnv: { EXPAND_CACHE_MB: '0' },
    goals: [],
  },
  {
    // No target: the yardstick for expand-list. 100 plain posts are as many rows and bytes as
    // 20 posts with their author and 3 comments each, read by one sequential query instead of
    // three; what this one costs over 20 posts is what any expansion of that page costs at least.
    id: 'expand-floor',
    title: 'list 100 posts without expand (the rows and bytes of the expanded page of 20) vs 20 posts',
    connections: 10,
    baseline: false,
    needsAuth: false,
    requests: (context) => postPages(context, undefined, 100),
    reference: { label: '20 posts', requests: (context) => postPages(context, undefined) },
    goals: [],
  },
  {
    // Issue 14: keyset cursors; page 5,000 costs what page 1 costs.
    id: 'cursor-deep',
    title: '1M-row table: page 5,000 by cursor (after=, limit 20) vs page 1',
    connections: 10,
    baseline: false,
    needsAuth: false,
    prepare: findDeepCursor,
    requests: (context) => {
      if (!context.deepCursor) throw new Error('cursor-deep: no cursor (its prepare step did not run)');
      return [{ method: 'GET', path: eventsPage(context, 20, context.deepCursor.after), headers: pk(context) }];
    },
    reference: {
      label: 'page 1',
      requests: (context) => [{ method: 'GET', path: eventsPage(context, 20), headers: pk(context) }],
    },
    goals: [{ kind: 'reference-latency', stat: 'p50', maxRatio: 1.5 }],
  },
  {
    id: 'login',
    title: 'login (argon2id)',
    connections: 20,
    baseline: false,
    needsAuth: true,
    requests: logins,
    goals: [],
  },
  {
    id: 'refresh',
    title: 'refresh',
    connections: 10,
    baseline: false,
    needsAuth: true,
    requests: (context) =>
      (context.sessions ?? []).map((s) => ({
        method: 'POST',
        path: `${auth(context)}/refresh`,
        body: JSON.stringify({ refresh_token: s.refreshToken }),
      })),
    goals: [],
  },
  {
    id: 'mixed',
    title: 'GET by id while 20 clients log in',
    connections: 10,
    baseline: false,
    needsAuth: true,
    requests: getById,
    background: { title: 'login', connections: 20, requests: logins },
    goals: [{ kind: 'latency', stat: 'p99', maxMs: 5 }],
  },
  {
    id: 'create',
    title: 'create one row',
    connections: 10,
    baseline: true,
    needsAuth: false,
    requests: (context) => [
      { method: 'POST', path: api(context, INBOX.name), headers: pk(context), body: JSON.stringify(itemRow(7)) },
    ],
    goals: [{ kind: 'ratio', min: 1.0 }],
  },
  {
    id: 'bulk-1000',
    title: 'bulk create, 1,000 rows per request (1 connection)',
    connections: 1,
    baseline: true,
    needsAuth: false,
    requests: (context) => [
      {
        method: 'POST',
        path: `${api(context, INBOX.name)}/bulk`,
        headers: pk(context),
        body: JSON.stringify(Array.from({ length: 1000 }, (_, n) => itemRow(n))),
      },
    ],
    goals: [
      { kind: 'ratio', min: 0.8 },
      { kind: 'latency', stat: 'p50', maxMs: 50 },
    ],
  },
  {
    // Issue 25: a batch of 999 operations in one transaction, each create changed and then
    // deleted again, so the request can be sent over and over (the ids come back free).
    // No target in the issue: the ratio to a hand-written transaction is reported.
    id: 'batch-999',
    title: 'batch of 999 operations (333 x create, update, delete) in one transaction (1 connection)',
    connections: 1,
    baseline: true,
    needsAuth: false,
    requests: (context) => [
      {
        method: 'POST',
        path: api(context, 'batch'),
        headers: pk(context),
        body: JSON.stringify({ operations: batchOperations(333) }),
      },
    ],
    goals: [],
  },
  UPDATE_BY_FILTER,
  {
    id: 'upsert-bulk-1000',
    title: 'upsert bulk on a unique column, 1,000 rows per request, all updates (1 connection)',
    connections: 1,
    baseline: true,
    needsAuth: false,
    // Two versions of the same 1,000 skus, alternating: every row exists, and every update changes it.
    requests: (context) =>
      [1, 2].map((version) => ({
        method: 'POST',
        path: `${api(context, STOCK.name)}/bulk?on_conflict=sku`,
        headers: pk(context),
        body: JSON.stringify(Array.from({ length: STOCK_ROWS }, (_, n) => stockRow(n, version))),
      })),
    goals: [{ kind: 'ratio', min: 0.8 }],
  },
];

/** `groups` times: create a row of inbox with a fixed id, change two of its columns, delete it. */
function batchOperations(groups: number): object[] {
  return Array.from({ length: groups }, (_, n) => {
    const id = `batch-bench-${n}`;
    return [
      { method: 'POST', table: INBOX.name, body: { id, ...itemRow(n) } },
      { method: 'PATCH', table: INBOX.name, id, body: { score: n + 1, done: true } },
      { method: 'DELETE', table: INBOX.name, id },
    ];
  }).flat();
}
