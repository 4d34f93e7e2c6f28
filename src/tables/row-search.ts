/**
 * The `search=` parameter of a list request (contract §18) for one table: whether it is a
 * full-text search, parsed, and the order it brings. A table that declares `search` columns
 * searches them; a table without any refuses `search=` with VALIDATION_FILTER, unless it has a
 * column named `search`, whose shorthand filter (`search=eq.x`) keeps working as before.
 */
import { AppError } from '../errors/app-error.js';
import { parseSearch } from '../query/search-parser.js';
import type { OrderTerm, SearchClause } from '../query/sql-tree.js';
import type { CompiledTable } from './compiled-table.js';

type Query = Readonly<Record<string, string | string[] | undefined>>;

/** A list request's full-text search: the clause, and its text as written (cursors are bound to it). */
export interface ListSearch {
  readonly clause: SearchClause;
  readonly source: string;
}

/** The order of a search without `sort`: most relevant first, then by id. */
export const RANK_ORDER: readonly OrderTerm[] = Object.freeze([
  Object.freeze({
    column: '_rb_rank',
    descending: true,
    expr: { kind: 'search-rank' } as const,
    type: 'number' as const,
  }),
  Object.freeze({ column: 'id', descending: false, notNull: true }),
]);

/**
 * Splits `search=` off a list query when it is a full-text search. An empty or blank value is
 * no search. Throws VALIDATION_FILTER: the table declares no search columns, the parameter is
 * given twice, or the query is refused by `parseSearch`.
 */
export function takeSearch(query: Query, table: CompiledTable): { query: Query; search: ListSearch | undefined } {
  const raw = query.search;
  if (raw === undefined) return { query, search: undefined };
  const declared = table.definition.search !== undefined;
  if (!declared && table.filterable.has('search')) return { query, search: undefined };
  const { search: _, ...rest } = query;
  if (!declared)
    throw new AppError('VALIDATION_FILTER', {
      message: `search: the table "${table.name}" declares no columns to search`,
      suggestion:
        `Declare its text columns to search, e.g. PATCH /v1/tables/${table.name} with {"search": ["title"]}, ` +
        'or filter with filter=title ~ "word".',
    });
  if (typeof raw !== 'string')
    throw new AppError('VALIDATION_FILTER', {
      message: `search: given ${raw.length} times`,
      suggestion: 'Give search once, with every word in it: search=apple pie.',
    });
  if (raw.trim() === '') return { query: rest, search: undefined };
  return { query: rest, search: Object.freeze({ clause: Object.freeze({ query: parseSearch(raw) }), source: raw }) };
}

/** True when the list query names a sort (then rows come in that order, not by relevance). */
export function hasSort(query: Query): boolean {
  return typeof query.sort === 'string' ? query.sort.trim() !== '' : query.sort !== undefined;
}
