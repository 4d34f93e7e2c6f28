/**
 * The query string of a list request (contract §6) → `ListParams`: paging, counting, order,
 * projection and the WHERE expression built from `filter=` and the shorthand filters.
 * Pure: it checks names against the columns it is given and produces SQL tree nodes.
 */
import { AppError, isAppError } from '../errors/app-error.js';
import type { Expr, OrderTerm, ValueType } from './sql-tree.js';
import { hasPaths } from './expr-walk.js';
import { compileFilter } from './filter-compiler.js';
import { listNames } from './literal-values.js';
import { parseFilter, shortenSource } from './filter-parser.js';
import { parseShorthand } from './shorthand.js';
import type { PathResolver } from './filter-operands.js';
import { isAggregateSelect, parseAggregateSelect, parseAggregateSort, type AggregateSelect } from './aggregates.js';

/** What a list request asks for, validated against the table's columns. */
export interface ListParams {
  readonly limit: number;
  readonly offset: number;
  /** False for `count=none`: the caller pages without a total. */
  readonly countTotal: boolean;
  /** Always ends with `id` so that every order is stable. */
  readonly orderBy: OrderTerm[];
  /** The columns to return, `id` first; null returns every column. */
  readonly select: string[] | null;
  /** `filter=` and every shorthand filter ANDed; undefined when there is none. */
  readonly where: Expr | undefined;
  /** `after=`: the cursor to continue from (never together with `offset`). */
  readonly after: string | undefined;
  /** `filter` and the shorthand filters as written (name, text): what a cursor is bound to besides the sort. */
  readonly filterSources: readonly (readonly [string, string])[];
  /**
   * An aggregate `select` (contract §13): grouping columns and outputs;
   * `select` is then null and `orderBy` names groups and keys.
   */
  readonly aggregate: AggregateSelect | undefined;
  /** `expand=` as written (query/expand.ts parses it against the project's references). */
  readonly expand: string | undefined;
}

/** Rows per page when `limit` is absent. */
export const DEFAULT_LIMIT = 50;
/** Larger limits are clamped to this rather than refused (contract §6). */
export const MAX_LIMIT = 1000;
/** Largest accepted offset; deeper paging should narrow the filter instead. */
export const MAX_OFFSET = 2 ** 31;

/** Query parameters with a meaning of their own; every other name is a shorthand filter on a column. */
export const RESERVED_LIST_PARAMETERS = Object.freeze([
  'limit',
  'offset',
  'count',
  'sort',
  'select',
  'filter',
  'after',
  'expand',
] as const);

type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

const PAGING = 'Page with limit and offset: the third page of 20 rows is limit=20&offset=40.';
const SORTING = 'Sort with sort: comma-separated columns, - for descending, for example: sort=-created_at,title.';
const hint = (instead: string, suggestion: string) =>
  Object.freeze({ detail: `not a list parameter (and not a column of this table); ${instead}`, suggestion });
/**
 * Parameters other APIs use for paging, order or relations. Unless the table has a column of
 * that name, they answer with the parameter Rowbase uses instead of "unknown column".
 */
const LIST_PARAMETER_HINTS: Readonly<Record<string, { detail: string; suggestion: string }>> = Object.freeze({
  page: hint('paging is limit and offset', PAGING),
  ...Object.fromEntries(
    ['perPage', 'per_page', 'pageSize', 'page_size'].map((name) => [name, hint('the page size is limit', PAGING)]),
  ),
  skip: hint('rows to skip is offset', PAGING),
  ...Object.fromEntries(
    ['order', 'orderBy', 'order_by', 'sort_by'].map((name) => [name, hint('the order is sort', SORTING)]),
  ),
  fields: hint('the columns to return are select', 'Choose columns with select, for example: select=title,done.'),
});

/**
 * Parses the query parameters of a list request. `columns` are the columns a caller may name
 * (never `password`); `now` is the request's ISO timestamp for `@now`.
 * Throws AppError VALIDATION_FILTER naming the parameter for: a parameter given more than
 * once, a limit or offset that is not a whole number in range, a count other than exact/none,
 * an unknown or json sort column, an unknown select column, an invalid filter expression and
 * an invalid shorthand filter.
 */
export function parseListParams(
  query: Query,
  columns: ReadonlyMap<string, ValueType>,
  now: string,
  paths?: PathResolver,
): ListParams {
  const single = (name: string): string | undefined => singleValue(query, name);

  const where: Expr[] = [];
  const filterSources: [string, string][] = [];
  const filter = single('filter');
  if (filter !== undefined && filter.trim() !== '') {
    where.push(reused(columns, `filter\0${filter}`, filter, () => compileUserFilter(filter, columns, now, paths)));
    filterSources.push(['filter', filter.trim()]);
  }
  for (const name of Object.keys(query)) {
    if ((RESERVED_LIST_PARAMETERS as readonly string[]).includes(name)) continue;
    const raw = single(name);
    if (raw !== undefined && !columns.has(name) && Object.hasOwn(LIST_PARAMETER_HINTS, name))
      throw invalid(name, LIST_PARAMETER_HINTS[name]!.detail, LIST_PARAMETER_HINTS[name]!.suggestion);
    if (raw !== undefined) {
      where.push(reused(columns, `${name}\0${raw}`, raw, () => parseShorthand(name, raw, columns, now, paths)));
      filterSources.push([name, raw]);
    }
  }
  const after = single('after');
  if (after !== undefined && single('offset') !== undefined) {
    throw invalid(
      'after',
      'cannot be combined with offset',
      'Page either with after=<meta.next_cursor of the previous page> or ' +
        'with offset, not both; cursors are the faster way on deep pages.',
    );
  }

  const selectText = single('select');
  const aggregate =
    selectText !== undefined && isAggregateSelect(selectText)
      ? parseAggregateSelect(splitNames('select', selectText, 'select=status,count()'), columns)
      : undefined;
  if (aggregate) filterSources.push(['select', selectText!.replace(/\s+/g, '')]);
  const sortText = single('sort');
  return Object.freeze({
    ...parsePaging(query),
    countTotal: parseCount(single('count')),
    orderBy: aggregate
      ? parseAggregateSort(
          sortText === undefined || sortText.trim() === '' ? undefined : splitNames('sort', sortText, 'sort=-count'),
          aggregate,
        )
      : reused(columns, `sort\0${sortText ?? ''}`, sortText ?? '', () => parseSort(sortText, columns, paths)),
    select: aggregate ? null : parseSelect(selectText, columns),
    aggregate,
    expand: expandText(single('expand'), { aggregated: aggregate !== undefined }),
    where:
      where.length === 0
        ? undefined
        : where.length === 1
          ? where[0]
          : Object.freeze({ kind: 'and', items: Object.freeze(where) }),
    after: after === undefined || after === '' ? undefined : after,
    filterSources: Object.freeze(filterSources),
  });
}

/**
 * Filters and sorts compiled before for the same columns (one table, one schema version), by
 * parameter and text: lists repeat a few of them, and parsing and compiling one costs more
 * than the rest of a list's parameters. Only results that hold for every caller at every time
 * are kept: none whose text names `@` (`@now`, `@request`), none that follows a relation path
 * (its hops are checked against the caller's view rules).
 */
const compiledBefore = new WeakMap<ReadonlyMap<string, ValueType>, Map<string, unknown>>();
/** Texts kept per table; past it the cache starts over. */
const COMPILED_LIMIT = 256;

function reused<T extends Expr | OrderTerm[]>(
  columns: ReadonlyMap<string, ValueType>,
  key: string,
  text: string,
  compile: () => T,
): T {
  let cache = compiledBefore.get(columns);
  const hit = cache?.get(key);
  if (hit !== undefined) return hit as T;
  const result = compile();
  if (text.includes('@') || followsPath(result)) return result;
  if (!cache) {
    cache = new Map();
    compiledBefore.set(columns, cache);
  }
  if (cache.size >= COMPILED_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}

/** Whether a compiled filter or sort reads a relation path anywhere. */
function followsPath(result: Expr | readonly OrderTerm[]): boolean {
  if (Array.isArray(result)) return (result as readonly OrderTerm[]).some((term) => term.expr !== undefined);
  return hasPaths(result as Expr);
}

/**
 * `limit` (default 50, clamped to 1000) and `offset` (default 0, at most 2^31) of any listing.
 * Throws VALIDATION_FILTER for a value that is not a whole number in range, or given twice.
 */
export function parsePaging(query: Query): { limit: number; offset: number } {
  return {
    limit: Math.min(
      parseWholeNumber('limit', singleValue(query, 'limit'), DEFAULT_LIMIT, Number.POSITIVE_INFINITY),
      MAX_LIMIT,
    ),
    offset: parseWholeNumber('offset', singleValue(query, 'offset'), 0, MAX_OFFSET),
  };
}

function singleValue(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === 'string') return value;
  if (value.length === 1) return value[0];
  throw invalid(
    name,
    `given ${value.length} times`,
    'Give each parameter once; combine conditions in one filter, for example: filter=n > 1 && n < 5.',
  );
}

function invalid(parameter: string, detail: string, suggestion: string): AppError {
  return new AppError('VALIDATION_FILTER', { message: `${parameter}: ${detail}`, suggestion });
}

function compileUserFilter(
  source: string,
  columns: ReadonlyMap<string, ValueType>,
  now: string,
  paths?: PathResolver,
): Expr {
  try {
    return compileFilter(parseFilter(source, 'filter'), { parameter: 'filter', columns, now, ...(paths && { paths }) });
  } catch (error) {
    // The parser does not know the table; the contract wants the columns in every filter suggestion.
    if (isAppError(error) && !error.suggestion.includes('columns:')) {
      throw new AppError(error.code, {
        message: error.message,
        suggestion: `${error.suggestion} Columns: ${listNames(columns.keys())}.`,
      });
    }
    throw error;
  }
}

function expandText(text: string | undefined, { aggregated }: { readonly aggregated: boolean }): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (aggregated)
    throw invalid(
      'expand',
      'cannot be combined with aggregates in select',
      'Aggregate rows are groups, not rows: leave expand out, or drop the aggregate functions from select.',
    );
  return text;
}

function parseWholeNumber(parameter: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  // Digits only: Number() would also take '', ' 1', '1e3' and '0x10'.
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value) || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? 'a whole number ≥ 0' : `a whole number from 0 to ${max}`;
    throw invalid(
      parameter,
      `expected ${range}, found "${shortenSource(text)}"`,
      `For example: ${parameter}=${parameter === 'limit' ? 20 : 40}.`,
    );
  }
  return value;
}

function parseCount(text: string | undefined): boolean {
  if (text === undefined || text === 'exact') return true;
  if (text === 'none') return false;
  throw invalid(
    'count',
    `expected exact or none, found "${shortenSource(text)}"`,
    'Use count=none to skip counting, or leave count out for an exact total.',
  );
}

/** Comma-separated names, trimmed; an empty item (`a,,b`) is an error. */
function splitNames(parameter: string, text: string, example: string): string[] {
  return text.split(',').map((item) => {
    const name = item.trim();
    if (name === '' || name === '-')
      throw invalid(
        parameter,
        `expected a column name between the commas in "${shortenSource(text)}"`,
        `For example: ${example}.`,
      );
    return name;
  });
}

function parseSort(
  text: string | undefined,
  columns: ReadonlyMap<string, ValueType>,
  paths?: PathResolver,
): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (text === undefined || text.trim() === '') {
    if (columns.has('created_at')) terms.push(Object.freeze({ column: 'created_at', descending: false }));
  } else {
    const sortable = [...columns].filter(([, type]) => type !== 'json').map(([name]) => name);
    for (const item of splitNames('sort', text, 'sort=-created_at,title')) {
      const descending = item.startsWith('-');
      const name = descending ? item.slice(1) : item;
      if (name.includes('.') && paths) {
        // A relation path (sort=owner.name): ordered by the related
        // row's column, null where the caller may not view it.
        const path = paths('row', name.split('.'), null);
        if ('detail' in path) throw invalid('sort', path.detail, path.suggestion);
        if (path.type === 'json')
          throw invalid(
            'sort',
            `json column "${name}" cannot be sorted`,
            `Sort by a column of another type, with - for descending, for example: sort=-created_at.`,
          );
        if (!terms.some((term) => term.column === name))
          terms.push(Object.freeze({ column: name, descending, expr: path.expr, type: path.type }));
        continue;
      }
      const type = columns.get(name);
      if (type === undefined || type === 'json') {
        throw invalid(
          'sort',
          type === 'json' ? `json column "${name}" cannot be sorted` : `unknown column "${shortenSource(name)}"`,
          `Sort by one of the columns: ${listNames(sortable)}, with - for descending, for example: sort=-created_at.`,
        );
      }
      // A repeated column cannot change the order any more: keep its first mention.
      if (!terms.some((term) => term.column === name)) terms.push(Object.freeze({ column: name, descending }));
    }
  }
  if (!terms.some((term) => term.column === 'id')) {
    // The tie-breaker follows the last key's direction, so `sort=-created_at` walks the
    // (created_at, id) index backwards instead of sorting every run of equal timestamps.
    terms.push(Object.freeze({ column: 'id', descending: terms.at(-1)?.descending ?? false }));
  }
  return Object.freeze(terms) as OrderTerm[];
}

function parseSelect(text: string | undefined, columns: ReadonlyMap<string, ValueType>): string[] | null {
  if (text === undefined || text.trim() === '') return null;
  const names = ['id'];
  for (const name of splitNames('select', text, 'select=title,done')) {
    if (!columns.has(name)) {
      throw invalid(
        'select',
        `unknown column "${shortenSource(name)}"`,
        `Select from the columns: ${listNames(columns.keys())}, for example: select=id,created_at.`,
      );
    }
    if (!names.includes(name)) names.push(name);
  }
  return Object.freeze(names) as string[];
}
