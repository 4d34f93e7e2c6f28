/**
 * The types the SDK is parameterised by: a `Database` as `rowbase types` prints it, the
 * signed-in user, the session, and the options and results of the data API.
 */

/**
 * The shapes of one table: the row as read, the body of a create, the body of a PATCH, and
 * (from `rowbase types`) what `expand` can follow from a row.
 */
export interface TableTypes {
  Row: object;
  Create: object;
  Update: object;
  Relations?: object;
}

/**
 * One relation of a generated `…Relations` interface: the related table's row and relations,
 * and whether the path lists rows (`table(column)`, true) or points at one (a reference, false).
 */
export interface RelationTypes {
  row: object;
  relations: object;
  many: boolean;
}

/** A table's generated relations, or never when its types carry none (untyped, or older `rowbase types` output). */
export type RelationsOf<T> = T extends { Relations: infer R extends object } ? R : never;

/**
 * The `expand` paths of a table with generated relations: a relation, then up to two more
 * below it, joined by dots (`author`, `author.team`, `comments(post).author`).
 */
export type ExpandPath<Rel, Depth extends unknown[] = []> = Depth['length'] extends 3
  ? never
  : {
      [K in keyof Rel & string]:
        | K
        | (Rel[K] extends { relations: infer Next } ? `${K}.${ExpandPath<Next, [...Depth, unknown]>}` : never);
    }[keyof Rel & string];

/** What `expand` accepts for a table: its paths when typed, any string otherwise. */
export type ExpandPathOf<T> = [RelationsOf<T>] extends [never] ? string : ExpandPath<RelationsOf<T>>;

/** A related row as embedded: with its own `expand` when paths go on below it (`Rest`, a union). */
type RelatedRow<R, Rest extends string> = R extends { row: infer Row; relations: infer Next }
  ? [Rest] extends [never]
    ? Row
    : Row & { expand: ExpandBy<Next, Rest> }
  : never;

/** One relation's value under `expand`: a list for `table(column)`, else the row or null (empty, gone, or hidden). */
type RelationValue<R, Rest extends string> = R extends { many: true }
  ? RelatedRow<R, Rest>[]
  : RelatedRow<R, Rest> | null;

/** The first segment of each path. */
type HeadOf<P extends string> = P extends `${infer Head}.${string}` ? Head : P;
/** What the paths `P` ask for below the relation `K` (never when none goes deeper). */
type RestOf<P extends string, K extends string> = P extends `${K}.${infer Rest}` ? Rest : never;

/**
 * The `expand` object of a row asked for with the paths `P`: one key per first segment, and
 * the paths that go on below it merged into that row's own `expand` ('owner' with
 * 'owner.team', or 'comments(post)' with 'comments(post).author', give one typed value).
 */
export type ExpandBy<Rel, P extends string> = {
  [K in HeadOf<P> & keyof Rel & string]: RelationValue<Rel[K], RestOf<P, K>>;
};

/**
 * A row of table `T` as a list answers it for the expand paths `E` (given as a list): `expand`
 * typed by the generated relations, or the generic `Expanded` shape for a table without them.
 * `E` is every path of the table when none was given as a list (no `expand`, a comma-joined
 * string, type arguments written by hand), and when one path is wrong (inference falls back to
 * the constraint and the error is reported there): the plain row then, without typing every
 * path at once, which would only slow the checker down.
 */
export type WithExpand<T, Row, E extends string> = [ExpandPathOf<T>] extends [E]
  ? Row
  : [RelationsOf<T>] extends [never]
    ? Expanded<Row>
    : Row & { expand: ExpandBy<RelationsOf<T>, E> };

/** A row as `get` answers it: as in `WithExpand`, but the generic `Expanded` shape when no path was given as a list. */
export type GetResult<T, Row, E extends string> = [ExpandPathOf<T>] extends [E] ? Expanded<Row> : WithExpand<T, Row, E>;

/**
 * What a `Database` must look like: one `TableTypes` per table name. A mapped type rather than
 * an index signature, so that interfaces (which have no index signature) qualify.
 */
export type DatabaseShape<D> = { [K in keyof D]: TableTypes };

/** A row of a table without generated types. */
export type GenericRow = Record<string, unknown>;

/** The database assumed without a generated `Database` type: any table, any columns. */
export type UntypedDatabase = Record<string, { Row: GenericRow; Create: GenericRow; Update: GenericRow }>;

/**
 * A realtime topic of one of D's tables: `"tasks"`, `"tasks/ROW_ID"` or
 * `"tasks?filter=<url-encoded filter>"`. Without a generated `Database`, any string.
 */
export type RealtimeTopic<D> = { [N in keyof D & string]: N | `${N}/${string}` | `${N}?filter=${string}` }[keyof D &
  string];

/** The table a realtime topic names (the part before `/` or `?`). */
export type TopicTable<T extends string> = T extends `${infer N}/${string}`
  ? N
  : T extends `${infer N}?${string}`
    ? N
    : T;

/** The row type the events of topic T carry: the `Row` of the table it names, as `table(name)` returns it. */
export type TopicRow<D, T extends string> =
  TopicTable<T> extends keyof D ? (D[TopicTable<T>] extends { Row: infer R } ? R : GenericRow) : GenericRow;

/** The signed-in user: the auth-table row (never a password). Custom columns are `unknown`. */
export interface AuthUser {
  id: string;
  email: string;
  email_verified: boolean;
  created_at: string;
  updated_at: string;
  [column: string]: unknown;
}

/**
 * A signed-in session as the SDK keeps it (and stores it). `expiresAt` is when the access
 * token expires on the SDK's clock (milliseconds), or null when the token carries no expiry.
 */
export interface Session<U = AuthUser> {
  token: string;
  refreshToken: string;
  expiresAt: number | null;
  user: U | null;
}

/** Why the session changed, as passed to `auth.onChange` listeners. */
export type SessionEvent = 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED';

/** A column name, or `-name` for descending order. */
export type SortKey<Row> = (keyof Row & string) | `-${keyof Row & string}`;

/** Options every method takes. */
export interface CallOptions {
  /** Aborts the request; the method then throws a RowbaseError with code `ABORTED`. */
  signal?: AbortSignal;
}

/** Options of `table(name).create()` and `.bulk()`. */
export interface WriteOptions<Row> extends CallOptions {
  /**
   * Upsert on this unique column (or `id`): a row whose value of it is already taken updates
   * that row (only the columns sent, under the update rule) instead of failing with CONFLICT_UNIQUE.
   */
  onConflict?: keyof Row & string;
}

/** Options of `table(name).list()`. */
export interface ListOptions<Row, S extends keyof Row & string = keyof Row & string> extends CallOptions {
  /** An expression of the filter language, e.g. `done = false && title ~ "milk"`. */
  filter?: string;
  /** Shorthand filters, ANDed with `filter`: `{ done: 'eq.false', status: 'in.(open,closed)' }`. */
  where?: { [K in keyof Row & string]?: string };
  /** Columns to sort by, `-` for descending: `['-created_at', 'title']` (or that string joined with commas). */
  sort?: readonly SortKey<Row>[] | string;
  /** Columns to return (`id` always comes too). */
  select?: readonly S[];
  /** Rows per page (default 50, at most 1000). */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
  /** `'none'` skips counting: `meta.total` is then null. */
  count?: 'exact' | 'none';
  /** Cursor paging: the `meta.next_cursor` of the previous page (same filter and sort; not with `offset`). */
  after?: string;
  /**
   * Full-text search over the table's declared `search` columns: words, `"quoted phrases"`,
   * `-excluded` words and `or`, e.g. `'green tea -milk'`. Rows come most relevant first unless `sort` is given.
   */
  search?: string;
  /**
   * Related rows to embed under `expand`: `['owner', 'owner.team', 'comments(post)']`. With
   * generated types the names are checked and `row.expand` is typed; a comma-joined string
   * is sent as it is, and the rows' type then says nothing of `expand`.
   */
  expand?: readonly string[] | string;
}

/** Options of `table(name).get()`. */
export interface GetOptions extends CallOptions {
  /** Related rows to embed under `expand`, as in `list`. */
  expand?: readonly string[] | string;
}

/** The `expand` option narrowed to a table's paths (a list of them), or a comma-joined string. */
export interface ExpandOption<E extends string> {
  expand?: readonly E[] | string;
}

/** Options of `table(name).aggregate()`: the list options that apply to groups. */
export interface AggregateOptions<Row> extends CallOptions {
  filter?: string;
  where?: { [K in keyof Row & string]?: string };
  /** Grouping columns and output keys, `-` for descending: `['-count']`. */
  sort?: readonly string[] | string;
  limit?: number;
  offset?: number;
  count?: 'exact' | 'none';
  after?: string;
}

/** One group of an aggregate list: the grouping columns and the output keys (`count`, `sum_amount`, aliases). */
export type AggregateGroup = Record<string, string | number | boolean | null>;

/** A row with its embedded related rows (`expand=`): a row, null (hidden or empty), or a list (reverse). */
export type Expanded<Row> = Row & {
  expand?: Record<string, Record<string, unknown> | Record<string, unknown>[] | null>;
};

/** One of the signed-in user's sessions (GET /auth/sessions). */
export interface SessionInfo {
  id: string;
  created_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  /** True for the session this client uses. */
  current: boolean;
}

/** The row type a `select` leaves: the selected columns and `id`, or the whole row without one. */
export type Selected<Row, S extends keyof Row & string> = string extends keyof Row
  ? Row
  : [keyof Row & string] extends [S]
    ? Row
    : Pick<Row, S | ('id' & keyof Row)>;

/** Paging facts of a list answer. */
export interface ListMeta {
  /** Rows matching the filter and the caller's rules, or null with `count: 'none'`. */
  total: number | null;
  limit: number;
  offset: number;
  /** Pass as `after` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** One page of rows. */
export interface ListResult<Row> {
  data: Row[];
  meta: ListMeta;
}
