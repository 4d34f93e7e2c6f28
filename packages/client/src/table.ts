/**
 * `client.table(name)`: the data API of one table (/p/{project}/api/{table}), typed by the
 * table's generated Row, Create and Update shapes.
 */
import type { Requester } from './request.js';
import type {
  AggregateGroup,
  AggregateOptions,
  CallOptions,
  ExpandOption,
  ExpandPathOf,
  GetOptions,
  GetResult,
  ListOptions,
  ListResult,
  Selected,
  TableTypes,
  WithExpand,
  WriteOptions,
} from './types.js';

/** List, get, create, update, delete and bulk-create the rows of one table. */
export class TableClient<T extends TableTypes> {
  private readonly path: string;

  constructor(
    private readonly requester: Requester<unknown>,
    /** The table's name. */
    readonly name: string,
  ) {
    this.path = `/api/${encodeURIComponent(name)}`;
  }

  /**
   * One page of rows (GET /api/{table}) with filter, shorthand filters, sort, select, paging
   * and `expand` (typed by the generated relations: `expand: ['author']` gives `row.expand.author`).
   * Throws RowbaseError (VALIDATION_FILTER naming the position, FORBIDDEN, TABLE_NOT_FOUND, ...).
   */
  async list<S extends keyof T['Row'] & string = keyof T['Row'] & string, E extends ExpandPathOf<T> = ExpandPathOf<T>>(
    options: ListOptions<T['Row'], S> & ExpandOption<E> = {},
  ): Promise<ListResult<WithExpand<T, Selected<T['Row'], S>, E>>> {
    return this.requester.request('GET', this.path, { query: listQuery(options), signal: options.signal });
  }

  /**
   * One row by id (GET /api/{table}/{id}), with `expand` when given (typed as
   * in `list`). Throws RowbaseError (ROW_NOT_FOUND, VALIDATION_FILTER, ...).
   */
  async get<E extends ExpandPathOf<T> = ExpandPathOf<T>>(
    id: string,
    options: GetOptions & ExpandOption<E> = {},
  ): Promise<GetResult<T, T['Row'], E>> {
    const query = new URLSearchParams();
    if (options.expand !== undefined) query.set('expand', joined(options.expand));
    const answer = await this.requester.request<{ data: GetResult<T, T['Row'], E> }>('GET', this.rowPath(id), {
      query,
      signal: options.signal,
    });
    return answer.data;
  }

  /**
   * Aggregates (GET /api/{table}?select=...): `select` names grouping columns and functions,
   * e.g. `['status', 'count()', 'total:sum(amount)']`; each answer row is one group and
   * `meta.total` the number of groups. Throws RowbaseError (VALIDATION_FILTER, ...).
   */
  async aggregate(
    select: readonly string[] | string,
    options: AggregateOptions<T['Row']> = {},
  ): Promise<ListResult<AggregateGroup>> {
    const query = listQuery<T['Row']>({ ...options, sort: options.sort as never });
    query.set('select', joined(select));
    return this.requester.request('GET', this.path, { query, signal: options.signal });
  }

  /**
   * Every page of a list, one after the other, by cursor (`meta.next_cursor`), until the last.
   * `options.offset` is not allowed with cursors. Throws RowbaseError like `list`.
   */
  async *pages<
    S extends keyof T['Row'] & string = keyof T['Row'] & string,
    E extends ExpandPathOf<T> = ExpandPathOf<T>,
  >(
    options: ListOptions<T['Row'], S> & ExpandOption<E> = {},
  ): AsyncGenerator<ListResult<WithExpand<T, Selected<T['Row'], S>, E>>> {
    let after = options.after;
    do {
      const page: ListResult<WithExpand<T, Selected<T['Row'], S>, E>> = await this.list<S, E>({
        ...options,
        ...(after !== undefined && { after }),
      });
      yield page;
      after = page.meta.next_cursor ?? undefined;
    } while (after !== undefined);
  }

  /**
   * Creates a row (POST /api/{table}) and returns it as stored; with `onConflict`, updates the
   * row holding that unique value instead. Throws RowbaseError (VALIDATION_FAILED, CONFLICT_UNIQUE, ...).
   */
  async create(values: T['Create'], options: WriteOptions<T['Row']> = {}): Promise<T['Row']> {
    const answer = await this.requester.request<{ data: T['Row'] }>('POST', this.path, {
      body: values,
      signal: options.signal,
      ...upsertQuery(options),
    });
    return answer.data;
  }

  /**
   * Changes some columns of a row (PATCH /api/{table}/{id}) and returns
   * the row. Throws RowbaseError (ROW_NOT_FOUND, VALIDATION_FAILED, ...).
   */
  async update(id: string, changes: T['Update'], options: CallOptions = {}): Promise<T['Row']> {
    const answer = await this.requester.request<{ data: T['Row'] }>('PATCH', this.rowPath(id), {
      body: changes,
      signal: options.signal,
    });
    return answer.data;
  }

  /** Deletes a row (DELETE /api/{table}/{id}). Throws RowbaseError (ROW_NOT_FOUND, CONFLICT_REFERENCE, ...). */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.requester.request('DELETE', this.rowPath(id), { signal: options.signal });
  }

  /**
   * Creates up to 10,000 rows at once, all or nothing (POST /api/{table}/bulk); with
   * `onConflict`, rows whose unique value is taken update those rows. Throws RowbaseError
   * whose message starts with `row N:` for the first bad row; then no row is written.
   */
  async bulk(rows: readonly T['Create'][], options: WriteOptions<T['Row']> = {}): Promise<T['Row'][]> {
    const answer = await this.requester.request<{ data: T['Row'][] }>('POST', `${this.path}/bulk`, {
      body: rows,
      signal: options.signal,
      ...upsertQuery(options),
    });
    return answer.data;
  }

  /**
   * Changes `changes` on every row matching `filter` that the update rule lets the caller change
   * (PATCH /api/{table}?filter=...), in one transaction; `'true'` matches every row. Returns how
   * many rows changed; with `dryRun` how many would, writing nothing. Throws RowbaseError
   * (VALIDATION_FILTER, also when more than 10,000 rows match; VALIDATION_FAILED, FORBIDDEN, CONFLICT_UNIQUE, ...).
   */
  async updateWhere(filter: string, changes: T['Update'], options: WriteWhereOptions = {}): Promise<number> {
    const answer = await this.requester.request<CountAnswer>('PATCH', this.path, {
      query: whereQuery(filter, options),
      body: changes,
      signal: options.signal,
    });
    return answer.data.count;
  }

  /**
   * Deletes every row matching `filter` that the delete rule lets the caller delete (DELETE
   * /api/{table}?filter=...), in one transaction; `'true'` matches every row. Returns how many
   * rows were deleted; with `dryRun` how many would be. Throws RowbaseError (VALIDATION_FILTER,
   * also when more than 10,000 rows match; CONFLICT_REFERENCE, FORBIDDEN, ...).
   */
  async deleteWhere(filter: string, options: WriteWhereOptions = {}): Promise<number> {
    const answer = await this.requester.request<CountAnswer>('DELETE', this.path, {
      query: whereQuery(filter, options),
      signal: options.signal,
    });
    return answer.data.count;
  }

  private rowPath(id: string): string {
    return `${this.path}/${encodeURIComponent(id)}`;
  }
}

/** Options of `updateWhere` and `deleteWhere`. */
export interface WriteWhereOptions extends CallOptions {
  /** Only count the rows the call would touch; write nothing. */
  dryRun?: boolean;
}

interface CountAnswer {
  data: { count: number };
}

function whereQuery(filter: string, options: WriteWhereOptions): URLSearchParams {
  const query = new URLSearchParams({ filter });
  if (options.dryRun) query.set('dry_run', 'true');
  return query;
}

/** `?on_conflict=` of an upsert, or nothing. */
function upsertQuery(options: { onConflict?: string }): { query?: URLSearchParams } {
  return options.onConflict === undefined ? {} : { query: new URLSearchParams({ on_conflict: options.onConflict }) };
}

function joined(names: readonly string[] | string): string {
  return typeof names === 'string' ? names : names.join(',');
}

/** The query string of a list call; parameters left out are left to the server's defaults. */
export function listQuery<Row>(options: ListOptions<Row, keyof Row & string>): URLSearchParams {
  const query = new URLSearchParams();
  if (options.filter !== undefined) query.set('filter', options.filter);
  if (options.sort !== undefined)
    query.set('sort', typeof options.sort === 'string' ? options.sort : options.sort.join(','));
  if (options.select !== undefined) query.set('select', options.select.join(','));
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.offset !== undefined) query.set('offset', String(options.offset));
  if (options.count !== undefined) query.set('count', options.count);
  if (options.after !== undefined) query.set('after', options.after);
  if (options.search !== undefined) query.set('search', options.search);
  if (options.expand !== undefined) query.set('expand', joined(options.expand));
  for (const [column, condition] of Object.entries(options.where ?? {})) {
    if (condition !== undefined) query.append(column, condition as string);
  }
  return query;
}
