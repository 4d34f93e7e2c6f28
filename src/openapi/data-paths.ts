/**
 * The data API of one table in the OpenAPI document: `/api/{table}`, `/api/{table}/{row_id}`
 * and `/api/{table}/bulk`, with request and response schemas from the table's model, limited
 * to the operations the document's audience may call.
 */
import type { ErrorCode } from '../errors/codes.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, RESERVED_LIST_PARAMETERS } from '../query/list-params.js';
import { shorthandPattern } from '../query/shorthand-pattern.js';
import { MAX_SEARCH_LENGTH } from '../query/search-parser.js';
import type { RuleOperation } from '../schema/definition.js';
import { mayCall, type Audience } from './audience.js';
import { BODY, DATA_CREDENTIALS, errorResponses, ROW_WRITE } from './error-responses.js';
import type { SchemaModel, TableModel } from './schema-model.js';
import { filterWriteOperations } from './filter-write-paths.js';

/** `expand=` on list and get (contract §13): reference columns, nested with dots, and reverse table(column). */
const EXPAND_PARAMETER = {
  name: 'expand',
  schema: { type: 'string' },
  description:
    'Related rows to embed under "expand": reference columns (owner), nested up to 3 ' +
    'levels (owner.team), and reverse listings table(column) (comments(post), at ' +
    'most 100 per row). Only rows the caller may view/list; hidden ones are null.',
} as const;

/** Query parameters with a meaning of their own on list requests (see src/query/list-params.ts). */
const LIST_PARAMETERS = [
  {
    name: 'limit',
    schema: { type: 'integer', minimum: 0, default: DEFAULT_LIMIT },
    description:
      `Rows per page; larger values than ${MAX_LIMIT} are ` +
      `clamped to ${MAX_LIMIT} (meta.limit shows the value used).`,
  },
  {
    name: 'offset',
    schema: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
    description: 'Rows to skip.',
  },
  {
    name: 'count',
    schema: { type: 'string', enum: ['exact', 'none'], default: 'exact' },
    description: 'none skips counting: meta.total is then null.',
  },
  {
    name: 'sort',
    schema: { type: 'string' },
    description: 'Comma-separated columns, - for descending (sort=-created_at,title). id is always the last key.',
  },
  {
    name: 'select',
    schema: { type: 'string' },
    description:
      'Comma-separated columns to return; id is always included. With aggregates ' +
      '(select=status,count(),total:sum(amount)) each row is one group of the plain columns, without id.',
  },
  {
    name: 'filter',
    schema: { type: 'string' },
    description: 'A filter expression: (done = false && due < @now) || title ~ "urgent". See docs/api.md.',
  },
  {
    name: 'after',
    schema: { type: 'string' },
    description:
      'Cursor paging: the meta.next_cursor of the previous page, with the same sort and filter; not with offset.',
  },
  EXPAND_PARAMETER,
] as const;
// Every reserved name is described above; a column of the same name gets no shorthand parameter.
const RESERVED = new Set<string>([...RESERVED_LIST_PARAMETERS, ...LIST_PARAMETERS.map((p) => p.name)]);

/** Who may call the data API: any one of the credentials (contract §4, and §12's platform key). */
export const DATA_SECURITY = [{ AdminKey: [] }, { BearerAuth: [] }, { ApiKey: [] }, { PlatformKey: [] }];

/** Component names of a table's schemas. */
export function componentNames(table: TableModel) {
  const t = table.typeName;
  return { row: `${t}Row`, listItem: `${t}ListItem`, expand: `${t}Expand` };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const single = (name: string) => ({
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: ref(name) },
});

/** Most rows a reverse expansion lists per row (contract §13). */
const MAX_REVERSE_ROWS = 100;

/**
 * The `expand` object of a row of `table`: one optional property per expansion it can carry,
 * each by reference to the related table's row schema, so generated clients type it. A
 * reference column holds that table's row or null (empty, gone, or not viewable); a reverse
 * `other(column)` holds the rows of `other` whose column references this row. Nested paths
 * (owner.team) sit in the related row's own `expand`.
 */
function expandSchema(table: TableModel, model: SchemaModel, audience: Audience): object {
  const typeOf = new Map(model.tables.map((t) => [t.name, t] as const));
  const properties: Record<string, object> = {};
  for (const { column, table: target } of table.references) {
    const related = typeOf.get(target);
    if (!related) continue;
    // A table the caller may not view expands to null, always; its row schema is not the caller's to read.
    properties[column] = mayCall(related, 'view', audience)
      ? {
          anyOf: [ref(componentNames(related).row), { type: 'null' }],
          description: `The row of "${target}" that ${column} references; null when empty, gone or not viewable.`,
        }
      : {
          type: 'null',
          description: `Always null for this caller: the rows ${column} references are not viewable with this key.`,
        };
  }
  for (const { table: other, column } of table.referencedBy) {
    const related = typeOf.get(other)!;
    // A table the caller may not list expands to an empty list, always; its row schema is not the caller's to read.
    if (!mayCall(related, 'list', audience)) {
      properties[`${other}(${column})`] = {
        type: 'array',
        maxItems: 0,
        description: `Always empty for this caller: the rows of "${other}" are not listable with this key.`,
      };
      continue;
    }
    properties[`${other}(${column})`] = {
      type: 'array',
      maxItems: MAX_REVERSE_ROWS,
      items: ref(componentNames(related).row),
      description:
        `The rows of "${other}" whose ${column} references this row and ` +
        `that the caller may list, in creation order, at most ${MAX_REVERSE_ROWS}.`,
    };
  }
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    description: `Present when expand= was given: each requested expansion of a row of "${table.name}" by its key.`,
  };
}

/**
 * The component schemas of one table: what answers carry (row, list item, expand). Request
 * bodies are written inline in their operations instead: generators such as openapi-typescript
 * read a `default` in a component as "always present" (true of answers), which would make
 * every defaulted column required in a create body.
 */
export function tableComponents(table: TableModel, model: SchemaModel, audience: Audience): Record<string, object> {
  const names = componentNames(table);
  const expand = ref(names.expand);
  return {
    [names.row]: {
      ...table.row,
      properties: { ...table.row.properties, expand },
      description: `A row of "${table.name}" as every answer returns it.`,
    },
    [names.listItem]: {
      ...table.row,
      properties: { ...table.row.properties, expand },
      required: ['id'],
      description:
        `A row of "${table.name}" in a list answer: ` + 'every column, or only those named by select (id always).',
    },
    [names.expand]: expandSchema(table, model, audience),
  };
}

/** The body of POST /api/{table} (and each item of /bulk): defaulted columns may be left out. */
function createBody(table: TableModel): object {
  return {
    ...table.create,
    description: `The body that creates a row of "${table.name}"; a column left out takes its default.`,
  };
}

/**
 * The body of PATCH /api/{table}/{row_id}: a PATCH changes only
 * what it names, so nothing is required and nothing has a default.
 */
function updateBody(table: TableModel): object {
  const { required: _none, ...update } = table.update;
  return {
    ...update,
    description:
      `The body that changes a row of "${table.name}": any ` +
      'subset of its writable columns; a column left out keeps its value.',
  };
}

/**
 * The `on_conflict` parameter and the 200 answer that turn a create into an upsert (contract
 * §18); nothing on the auth table, which has none. `answer` is the 200 body's schema.
 */
function upsertParts(table: TableModel, answer: object, bulk: boolean): { parameters?: object[]; ok?: object } {
  if (table.conflictTargets.length === 0) return {};
  return {
    parameters: [
      {
        name: 'on_conflict',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: [...table.conflictTargets] },
        description:
          'Upsert: a row whose value of this unique column is taken updates that row (only the columns sent, ' +
          'under the update rule) instead of failing; any other column answers 400 VALIDATION_FAILED. A taken ' +
          'value in a row the caller may not update answers 409 CONFLICT_UNIQUE, as a plain create would.',
      },
    ],
    ok: {
      '200': {
        description: bulk
          ? 'With on_conflict: the rows inserted or updated, in the order sent.'
          : 'With on_conflict: the row that held the value, updated (201 when the row was inserted).',
        content: json(answer),
      },
    },
  };
}

/** The paths of one table, keyed by path, with the operations `audience` may call (contract §4). */
export function tablePaths(table: TableModel, audience: Audience): Record<string, object> {
  const paths = allTablePaths(table);
  const operations: Readonly<Record<string, Record<string, RuleOperation>>> = {
    [`/api/${table.name}`]: { get: 'list', post: 'create', patch: 'update', delete: 'delete' },
    [`/api/${table.name}/bulk`]: { post: 'create' },
    [`/api/${table.name}/{row_id}`]: { get: 'view', patch: 'update', delete: 'delete' },
  };
  const out: Record<string, object> = {};
  for (const [path, item] of Object.entries(paths)) {
    const kept = Object.entries(item).filter(
      ([method]) => method === 'parameters' || mayCall(table, operations[path]![method]!, audience),
    );
    if (kept.some(([method]) => method !== 'parameters')) out[path] = Object.fromEntries(kept);
  }
  return out;
}

function allTablePaths(table: TableModel): Record<string, Record<string, object>> {
  const names = componentNames(table);
  const t = table.typeName;
  const tags = [table.name];
  // RATE_LIMITED: the project's data_rate_limits (contract §18), on every data operation.
  const common: readonly ErrorCode[] = [...DATA_CREDENTIALS, 'TABLE_NOT_FOUND', 'FORBIDDEN', 'RATE_LIMITED'];
  // VALIDATION_PASSWORD can only come from a password column.
  const writes = ROW_WRITE.filter((code) => table.authTable || code !== 'VALIDATION_PASSWORD');
  const rowId = {
    name: 'row_id',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: 'The id of the row.',
  };
  // With search columns, search= is full-text search, even where a column is named search.
  const shorthand = table.readable
    .filter((column) => !RESERVED.has(column) && !(column === 'search' && table.search.length > 0))
    .map((column) => ({
      name: column,
      in: 'query',
      required: false,
      schema: { type: 'string', pattern: shorthandPattern(table.readableTypes[column]!) },
      description:
        `Shorthand filter on ${column} (${table.readableTypes[column]}): op.value with op one of ` +
        `eq, neq, gt, gte, lt, lte, like and ilike (text), in.(a,b), is (${column}=eq.value); the pattern ` +
        'is exactly what the server accepts, except two things no portable pattern states: numbers beyond ' +
        'range or impossible dates, and a value holding an unpaired UTF-16 surrogate, which is refused too.',
    }));

  const many = {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'array', items: ref(names.row) } },
  };
  const upsertOne = upsertParts(table, single(names.row), false);
  const upsertMany = upsertParts(table, many, true);

  return {
    [`/api/${table.name}`]: {
      get: {
        operationId: `list${t}`,
        summary: `List rows of ${table.name}`,
        description:
          'Rows the caller may list (the list rule is ANDed with the ' +
          'filter), in creation order unless sort says otherwise.',
        tags,
        security: DATA_SECURITY,
        parameters: [
          ...LIST_PARAMETERS.map((p) => ({ ...p, in: 'query', required: false })),
          ...searchParameter(table),
          ...shorthand,
        ],
        responses: {
          '200': {
            description: 'One page of rows.',
            content: json({
              type: 'object',
              additionalProperties: false,
              required: ['data', 'meta'],
              properties: {
                data: { type: 'array', items: { anyOf: [ref(names.listItem), ref('AggregateGroup')] } },
                meta: ref('ListMeta'),
              },
            }),
          },
          // A declared body over the limit is refused before anything else, on every data route.
          ...errorResponses([...common, 'VALIDATION_FILTER', 'PAYLOAD_TOO_LARGE']),
        },
      },
      post: {
        operationId: `create${t}`,
        summary: `Create a row of ${table.name}`,
        description:
          'The create rule judges the new row (403 FORBIDDEN when it fails). ' +
          'Left-out columns take their default; the answer is the stored row.',
        tags,
        security: DATA_SECURITY,
        ...(upsertOne.parameters && { parameters: upsertOne.parameters }),
        requestBody: { required: true, content: json(createBody(table)) },
        responses: {
          ...upsertOne.ok,
          '201': { description: 'The created row.', content: json(single(names.row)) },
          ...errorResponses([...common, ...writes, ...BODY]),
        },
      },
      ...filterWriteOperations(table, { common, writes, updateBody: updateBody(table), security: DATA_SECURITY }),
    },
    [`/api/${table.name}/bulk`]: {
      post: {
        operationId: `bulkCreate${t}`,
        summary: `Create several rows of ${table.name}, all or nothing`,
        description:
          'Every row is validated first, then all are written in one transaction. An error message starts ' +
          'with "row N:" (0-based) for the first bad row, and no row is written. Bodies up to 16 MiB.',
        tags,
        security: DATA_SECURITY,
        ...(upsertMany.parameters && { parameters: upsertMany.parameters }),
        requestBody: {
          required: true,
          content: json({ type: 'array', minItems: 1, maxItems: 10000, items: createBody(table) }),
        },
        responses: {
          ...upsertMany.ok,
          '201': { description: 'The created rows, in the order sent.', content: json(many) },
          ...errorResponses([...common, ...writes, ...BODY]),
        },
      },
    },
    [`/api/${table.name}/{row_id}`]: {
      parameters: [rowId],
      get: {
        operationId: `get${t}`,
        summary: `Get a row of ${table.name}`,
        description:
          'A row outside the view rule answers 404 ROW_NOT_FOUND, as a ' +
          'missing one does. expand= embeds related rows under "expand".',
        tags,
        security: DATA_SECURITY,
        parameters: [{ ...EXPAND_PARAMETER, in: 'query', required: false }],
        responses: {
          '200': { description: 'The row.', content: json(single(names.row)) },
          ...errorResponses([...common, 'ROW_NOT_FOUND', 'VALIDATION_FILTER', 'PAYLOAD_TOO_LARGE']),
        },
      },
      patch: {
        operationId: `update${t}`,
        summary: `Change a row of ${table.name}`,
        description:
          'Changes only the columns the body names; the others keep their ' +
          'values. A row outside the update rule answers 404 ROW_NOT_FOUND.',
        tags,
        security: DATA_SECURITY,
        requestBody: { required: true, content: json(updateBody(table)) },
        responses: {
          '200': { description: 'The changed row.', content: json(single(names.row)) },
          ...errorResponses([...common, 'ROW_NOT_FOUND', ...writes, ...BODY]),
        },
      },
      delete: {
        operationId: `delete${t}`,
        summary: `Delete a row of ${table.name}`,
        description:
          'A row outside the delete rule answers 404 ROW_NOT_FOUND. Rows of other tables that ' +
          'reference it follow their on_delete (a restrict answers 409 CONFLICT_REFERENCE).',
        tags,
        security: DATA_SECURITY,
        responses: {
          '204': { description: 'Deleted.' },
          ...errorResponses([...common, 'ROW_NOT_FOUND', 'CONFLICT_REFERENCE', ...BODY]),
        },
      },
    },
  };
}

/** One row of an aggregate select: the grouping columns and the output keys, never id (contract §13). */
export const AGGREGATE_GROUP_SCHEMA = Object.freeze({
  type: 'object',
  not: { required: ['id'] },
  additionalProperties: { type: ['string', 'number', 'integer', 'boolean', 'null'] },
  description:
    'One group of an aggregate select: its grouping columns and the outputs ' +
    '(count, sum_<col>, avg_<col>, min_<col>, max_<col> or the aliases).',
});

/** The `meta` of a list answer. */
export const LIST_META_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'limit', 'offset', 'next_cursor'],
  properties: {
    total: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'Rows matching the filter and the list rule; null with count=none.',
    },
    limit: { type: 'integer', minimum: 0, description: 'The page size used.' },
    offset: { type: 'integer', minimum: 0, description: 'The offset used.' },
    next_cursor: {
      type: ['string', 'null'],
      description: 'Pass as after= for the next page (same sort and filter); null on the last page.',
    },
  },
});

/** `search=` of a table with search columns (contract §18); none for other tables. */
function searchParameter(table: TableModel): object[] {
  if (table.search.length === 0) return [];
  return [
    {
      name: 'search',
      in: 'query',
      required: false,
      schema: { type: 'string', maxLength: MAX_SEARCH_LENGTH },
      description:
        `Full-text search over ${table.search.join(', ')}: words (all must match), "quoted phrases", ` +
        '-excluded words, or between two words; case-insensitive, accents folded, no stemming. Rows come ' +
        'most relevant first unless sort is given. See docs/api.md.',
    },
  ];
}
