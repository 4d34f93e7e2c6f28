/**
 * Response serialisers of one compiled table (one schema version): fast-json-stringify
 * functions for the data API's envelopes `{data: row}` and `{data: [rows], meta}`, generated
 * from the table's readable columns, as Fastify does for a route's response schema. The
 * data routes are generic (one route for every table of every project), so they cannot
 * declare response schemas; the table carries its own instead.
 *
 * Plain rows (readable columns, or a selection of them) go through `buildRowJson`; pages
 * with `expand` through `buildExpandedRowJson`, whose schema adds the expanded rows' shapes.
 * Aggregates add keys no schema knows, and the callers send those through JSON.stringify.
 * Every column's schema lists its one JSON type plus null, so a value of any other type makes
 * the compiled function throw rather than coerce it; the envelope is then written by
 * JSON.stringify, and the answer is the same either way.
 */
import fastJson from 'fast-json-stringify';
import type { ExpandNode } from '../query/expand.js';
import type { ColumnRef, ValueType } from '../query/sql-tree.js';
import type { Row } from '../store/types.js';

/** The `meta` of a list answer (contract §6). */
export interface PageMeta {
  readonly total: number | null;
  readonly limit: number;
  readonly offset: number;
  readonly next_cursor: string | null;
}

export interface RowJson {
  /** `{"data": row}` as JSON text. */
  one(body: { readonly data: Row }): string;
  /** `{"data": [rows], "meta": {...}}` as JSON text. */
  page(body: { readonly data: readonly Row[]; readonly meta: PageMeta }): string;
}

// `number` for integers too: fast-json-stringify writes a number as `'' + n` (what JSON.stringify
// writes), where its `integer` would round a stray fraction. Timestamps are ISO strings already.
const JSON_TYPES: Readonly<Record<ValueType, string | undefined>> = {
  text: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  timestamp: 'string',
  // Any JSON value: written by JSON.stringify.
  json: undefined,
};

function rowSchema(columns: readonly ColumnRef[]): { type: 'object'; properties: Record<string, object> } {
  const properties = Object.fromEntries(
    columns.map((column) => {
      const type = JSON_TYPES[column.type];
      return [column.name, type === undefined ? {} : { type: [type, 'null'] }];
    }),
  );
  return { type: 'object', properties };
}

const META_SCHEMA = {
  type: 'object',
  properties: {
    total: { type: ['number', 'null'] },
    limit: { type: 'number' },
    offset: { type: 'number' },
    next_cursor: { type: ['string', 'null'] },
  },
};

/**
 * Compiles `schema`; the function falls back to JSON.stringify when the compiled one refuses
 * a value (one of an unexpected type).
 */
function compile<T>(schema: object): (body: T) => string {
  const compiled = fastJson(schema as fastJson.AnySchema) as (body: T) => string;
  return (body) => {
    try {
      return compiled(body);
    } catch {
      return JSON.stringify(body);
    }
  };
}

/** Builds the serialisers of a table whose rows have `columns`; each envelope's is compiled on first use. */
export function buildRowJson(columns: readonly ColumnRef[]): RowJson {
  return envelopes(rowSchema(columns));
}

/**
 * The serialisers of rows of `columns` that carry `expand` (row-expand.ts): a forward path is
 * an expanded row or null, a reverse one a list of rows, each with its own `expand` when the
 * path goes on. `columnsOf` gives an expanded table's columns (its whole readable rows).
 */
export function buildExpandedRowJson(
  columns: readonly ColumnRef[],
  nodes: readonly ExpandNode[],
  columnsOf: (table: string) => readonly ColumnRef[],
): RowJson {
  return envelopes(expandedRowSchema(columns, nodes, columnsOf));
}

function expandedRowSchema(
  columns: readonly ColumnRef[],
  nodes: readonly ExpandNode[],
  columnsOf: (table: string) => readonly ColumnRef[],
): object {
  const row = rowSchema(columns);
  if (nodes.length === 0) return row;
  const expand = Object.fromEntries(
    nodes.map((node) => {
      const child = expandedRowSchema(columnsOf(node.table), node.children, columnsOf);
      return [
        node.key,
        node.kind === 'forward' ? { ...child, type: ['object', 'null'] } : { type: 'array', items: child },
      ];
    }),
  );
  return { type: 'object', properties: { ...row.properties, expand: { type: 'object', properties: expand } } };
}

function envelopes(row: object): RowJson {
  let one: RowJson['one'] | undefined;
  let page: RowJson['page'] | undefined;
  return {
    one: (body) => {
      one ??= compile({ type: 'object', properties: { data: row } });
      return one(body);
    },
    page: (body) => {
      page ??= compile({ type: 'object', properties: { data: { type: 'array', items: row }, meta: META_SCHEMA } });
      return page(body);
    },
  };
}
