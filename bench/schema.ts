/**
 * The benchmark project's tables, shared by the seeder (which declares them through
 * Rowbase's schema API) and the baseline server (which serves the same SQLite file by hand).
 */

/** A column as the baseline needs to know it: name and whether SQLite stores it as 0/1. */
export interface BenchColumn {
  readonly name: string;
  readonly type: 'text' | 'integer' | 'boolean' | 'timestamp';
}

/** One benchmark table: its Rowbase definition and the columns rows carry, in order. */
export interface BenchTable {
  readonly name: string;
  readonly definition: Record<string, unknown>;
  /** Readable columns in Rowbase's order: system columns first, then declared ones. */
  readonly columns: readonly BenchColumn[];
}

const SYSTEM: readonly BenchColumn[] = [
  { name: 'id', type: 'text' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'updated_at', type: 'timestamp' },
];

const OPEN_RULES = { list: '', view: '', create: '', update: '', delete: '' };

/** Categories of `items` (10 values, so a category filter matches a tenth of the rows). */
export const ITEM_CATEGORIES = 10;
/** Kinds of `events` (100 values, so a kind filter matches 1 % of the rows). */
export const EVENT_KINDS = 100;

const itemColumns = [
  { name: 'title', type: 'text', required: true, max_length: 200 },
  { name: 'category', type: 'text', required: true },
  { name: 'score', type: 'integer', min: 0 },
  { name: 'done', type: 'boolean', default: false },
];

/** Read-mostly table of the GET and list scenarios (10,000 rows, view rule ""). */
export const ITEMS: BenchTable = {
  name: 'items',
  definition: { columns: itemColumns, rules: OPEN_RULES, indexes: [['category', 'created_at', 'id']] },
  columns: [
    ...SYSTEM,
    { name: 'title', type: 'text' },
    { name: 'category', type: 'text' },
    { name: 'score', type: 'integer' },
    { name: 'done', type: 'boolean' },
  ],
};

/** Same shape as items; the write scenarios (create, bulk) grow this one so reads stay at 10,000 rows. */
export const INBOX: BenchTable = { ...ITEMS, name: 'inbox', definition: { ...ITEMS.definition, indexes: [] } };

/** A catalogue kept in sync by upserts on its unique `sku` (upsert-bulk-1000): 1,000 rows, updated in place. */
export const STOCK: BenchTable = {
  name: 'stock',
  definition: {
    columns: [{ name: 'sku', type: 'text', required: true, unique: true }, ...itemColumns],
    rules: OPEN_RULES,
  },
  columns: [...SYSTEM, { name: 'sku', type: 'text' }, ...ITEMS.columns.slice(SYSTEM.length)],
};

/** Rows of `stock` (and of each upsert request): skus 0 to 999. */
export const STOCK_ROWS = 1000;

/** The n-th stock row as a sync would send it; `version` changes the values, not the sku. */
export function stockRow(n: number, version = 0): Record<string, unknown> {
  return { sku: `sku-${n}`, ...itemRow(n + version) };
}

/** The auth table (login and refresh scenarios). */
export const USERS: BenchTable = {
  name: 'users',
  definition: { auth_table: true, columns: [{ name: 'display_name', type: 'text' }] },
  columns: [
    ...SYSTEM,
    { name: 'email', type: 'text' },
    { name: 'email_verified', type: 'boolean' },
    { name: 'display_name', type: 'text' },
  ],
};

/** Rows visible only to their owner (the bearer-token GET scenario). */
export const NOTES: BenchTable = {
  name: 'notes',
  definition: {
    columns: [
      { name: 'owner', type: 'text', required: true, references: { table: 'users', on_delete: 'cascade' } },
      { name: 'body', type: 'text' },
    ],
    rules: {
      list: 'owner = @request.auth.id',
      view: 'owner = @request.auth.id',
      create: null,
      update: null,
      delete: null,
    },
  },
  columns: [...SYSTEM, { name: 'owner', type: 'text' }, { name: 'body', type: 'text' }],
};

/** The scale table (1,000,000 rows), with the index its filtered list uses. */
export const EVENTS: BenchTable = {
  name: 'events',
  definition: {
    columns: [
      { name: 'kind', type: 'text', required: true },
      { name: 'score', type: 'integer' },
      { name: 'payload', type: 'text' },
    ],
    rules: OPEN_RULES,
    indexes: [['kind', 'created_at', 'id']],
  },
  columns: [
    ...SYSTEM,
    { name: 'kind', type: 'text' },
    { name: 'score', type: 'integer' },
    { name: 'payload', type: 'text' },
  ],
};

/** Topics of `posts` (10 values, so a topic's list has 1,000 posts). */
export const POST_TOPICS = 10;

/** Posts of the expand scenario (issue 14): `author` references an item (open view rule). */
export const POSTS: BenchTable = {
  name: 'posts',
  definition: {
    columns: [
      { name: 'title', type: 'text', required: true },
      { name: 'topic', type: 'text', required: true },
      { name: 'author', type: 'text', references: { table: 'items', on_delete: 'set_null' } },
    ],
    rules: OPEN_RULES,
    indexes: [['topic', 'created_at', 'id']],
  },
  columns: [
    ...SYSTEM,
    { name: 'title', type: 'text' },
    { name: 'topic', type: 'text' },
    { name: 'author', type: 'text' },
  ],
};

/** Comments on posts (the reverse path `comments(post)`; Rowbase indexes every reference column itself). */
export const COMMENTS: BenchTable = {
  name: 'comments',
  definition: {
    columns: [
      { name: 'post', type: 'text', required: true, references: { table: 'posts', on_delete: 'cascade' } },
      { name: 'body', type: 'text' },
    ],
    rules: OPEN_RULES,
  },
  columns: [...SYSTEM, { name: 'post', type: 'text' }, { name: 'body', type: 'text' }],
};

/**
 * The tables of the Rowbase-only relation scenarios, declared after BENCH_TABLES (posts
 * references items). Kept out of BENCH_TABLES: the baselines serve no routes for them.
 */
export const RELATION_TABLES: readonly BenchTable[] = [POSTS, COMMENTS];

/** Groups of `batches`, and the rows of each: what one update by filter may touch (issue 25). */
export const BATCH_GROUPS = 2;
export const BATCH_GROUP_ROWS = 10_000;

/** The table of the update-by-filter scenario: a `grp = 'g0'` filter matches 10,000 rows, on both engines. */
export const BATCHES: BenchTable = {
  name: 'batches',
  definition: {
    columns: [
      { name: 'grp', type: 'text', required: true },
      { name: 'score', type: 'integer' },
    ],
    rules: OPEN_RULES,
    indexes: [['grp']],
  },
  columns: [...SYSTEM, { name: 'grp', type: 'text' }, { name: 'score', type: 'integer' }],
};

/** Every table in declaration order (users before notes: notes references it). */
export const BENCH_TABLES: readonly BenchTable[] = [ITEMS, INBOX, USERS, NOTES, EVENTS, BATCHES, STOCK];

/** The n-th row of `batches`. */
export function batchRow(n: number): Record<string, unknown> {
  return { grp: `g${n % BATCH_GROUPS}`, score: n };
}

/** The n-th item row as a client would send it. */
export function itemRow(n: number): Record<string, unknown> {
  return {
    title: `Item number ${n} with a title of ordinary length`,
    category: `c${n % ITEM_CATEGORIES}`,
    score: n % 1000,
    done: n % 3 === 0,
  };
}

/** The n-th event row as a client would send it. */
export function eventRow(n: number): Record<string, unknown> {
  return { kind: `k${n % EVENT_KINDS}`, score: n % 10_000, payload: `event ${n}` };
}

/** The password every benchmark user gets (long enough for any minimum). */
export const USER_PASSWORD = 'correct horse battery staple';

/** The email of the n-th benchmark user. */
export function userEmail(n: number): string {
  return `user${n}@bench.example`;
}
