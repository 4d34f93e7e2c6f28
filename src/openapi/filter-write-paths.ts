/**
 * The update and delete by filter of one table in the OpenAPI document (contract §18):
 * `PATCH` and `DELETE` on `/api/{table}` with `filter` (required) and `dry_run`, answering
 * `{ data: { count } }`.
 */
import type { ErrorCode } from '../errors/codes.js';
import { MAX_FILTER_WRITE_ROWS } from '../tables/row-filter-write.js';
import { BODY, errorResponses } from './error-responses.js';
import type { TableModel } from './schema-model.js';

const FILTER_PARAMETERS = [
  {
    name: 'filter',
    in: 'query',
    required: true,
    schema: { type: 'string', minLength: 1 },
    description:
      'The rows to change: a filter expression as on list (done = true && owner = "ada"), or true for ' +
      `every row. The table's rule is ANDed with it; more than ${MAX_FILTER_WRITE_ROWS} matching rows ` +
      'answer 400 VALIDATION_FILTER and nothing is written.',
  },
  {
    name: 'dry_run',
    in: 'query',
    required: false,
    schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
    description: 'true answers the count of rows the request would touch, and writes nothing.',
  },
];

const COUNT_ANSWER = {
  'application/json': {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          additionalProperties: false,
          required: ['count'],
          properties: {
            count: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_FILTER_WRITE_ROWS,
              description: 'The rows touched (with dry_run=true: that would be touched).',
            },
          },
        },
      },
    },
  },
};

/** The body of an update by filter: the single-row PATCH body, without an auth table's password and email. */
function filterUpdateBody(table: TableModel, updateBody: { properties?: Record<string, object> }): object {
  if (!table.authTable) return updateBody;
  const { password: _password, email: _email, ...properties } = updateBody.properties ?? {};
  return { ...updateBody, properties };
}

/** What the table's other data operations share with these two. */
export interface FilterWriteShared {
  /** The codes every data operation of the table can answer. */
  readonly common: readonly ErrorCode[];
  /** The codes of a row write. */
  readonly writes: readonly ErrorCode[];
  /** The body of the single-row PATCH. */
  readonly updateBody: object;
  /** The data API's security requirements. */
  readonly security: readonly object[];
}

/** The `patch` and `delete` operations of `/api/{table}`. */
export function filterWriteOperations(
  table: TableModel,
  { common, writes, updateBody, security }: FilterWriteShared,
): { patch: object; delete: object } {
  const t = table.typeName;
  const tags = [table.name];
  return {
    patch: {
      operationId: `update${t}Where`,
      summary: `Change the rows of ${table.name} that a filter matches`,
      description:
        'One statement in one transaction: only rows the update rule lets the caller change are ' +
        'changed and counted. Each changed row sends its realtime event.',
      tags,
      security,
      parameters: FILTER_PARAMETERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: filterUpdateBody(table, updateBody as { properties?: Record<string, object> }),
          },
        },
      },
      responses: {
        '200': { description: 'How many rows were changed.', content: COUNT_ANSWER },
        ...errorResponses([...common, 'VALIDATION_FILTER', ...writes, ...BODY]),
      },
    },
    delete: {
      operationId: `delete${t}Where`,
      summary: `Delete the rows of ${table.name} that a filter matches`,
      description:
        'One statement in one transaction: only rows the delete rule lets the caller delete are ' +
        'deleted and counted. Rows of other tables that reference them follow their on_delete ' +
        '(a restrict answers 409 CONFLICT_REFERENCE and nothing is deleted). ' +
        'Each deleted row sends its realtime event.',
      tags,
      security,
      parameters: FILTER_PARAMETERS,
      responses: {
        '200': { description: 'How many rows were deleted.', content: COUNT_ANSWER },
        ...errorResponses([...common, 'VALIDATION_FILTER', 'CONFLICT_REFERENCE', ...BODY]),
      },
    },
  };
}
