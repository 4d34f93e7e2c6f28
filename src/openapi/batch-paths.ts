/**
 * The batch endpoint in the OpenAPI document: POST /api/batch (contract §18), its operations
 * typed per table and method from the schema model, limited to the writes the document's
 * audience may call.
 */
import type { ErrorCode } from '../errors/codes.js';
import { BATCH_TABLE_NAME, MAX_BATCH_OPERATIONS } from '../tables/batch-request.js';
import { mayCall, type Audience } from './audience.js';
import { componentNames, DATA_SECURITY } from './data-paths.js';
import { BODY, DATA_CREDENTIALS, errorResponses, ROW_WRITE } from './error-responses.js';
import type { SchemaModel, TableModel } from './schema-model.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const ID = { type: 'string', minLength: 1, description: 'The id of the row.' };

/** The operations `audience` may send against `table`: one schema per method its rules allow. */
function operationSchemas(table: TableModel, audience: Audience): object[] {
  const base = (method: string) => ({ method: { const: method }, table: { const: table.name } });
  const { required: _none, ...update } = table.update;
  const schemas: object[] = [];
  if (mayCall(table, 'create', audience)) {
    schemas.push({
      type: 'object',
      additionalProperties: false,
      required: ['method', 'table', 'body'],
      properties: { ...base('POST'), body: table.create },
    });
  }
  if (mayCall(table, 'update', audience)) {
    schemas.push({
      type: 'object',
      additionalProperties: false,
      required: ['method', 'table', 'id', 'body'],
      properties: { ...base('PATCH'), id: ID, body: update },
    });
  }
  if (mayCall(table, 'delete', audience)) {
    schemas.push({
      type: 'object',
      additionalProperties: false,
      required: ['method', 'table', 'id'],
      properties: { ...base('DELETE'), id: ID },
    });
  }
  return schemas;
}

/** `/api/batch` for `audience`, or no path when it may write no table. */
export function batchPaths(model: SchemaModel, audience: Audience): Record<string, object> {
  const writable = model.tables
    .filter((table) => table.name !== BATCH_TABLE_NAME)
    .map((table) => ({ table, operations: operationSchemas(table, audience) }))
    .filter(({ operations }) => operations.length > 0);
  if (writable.length === 0) return {};
  const rows = writable.map(({ table }) => ref(componentNames(table).row));
  const writes = ROW_WRITE.filter((code) => code !== 'VALIDATION_PASSWORD' || writable.some((w) => w.table.authTable));
  const codes: readonly ErrorCode[] = [
    ...DATA_CREDENTIALS,
    'TABLE_NOT_FOUND',
    'FORBIDDEN',
    'ROW_NOT_FOUND',
    // The project's data_rate_limits: a batch counts as one write (contract §18).
    'RATE_LIMITED',
    ...writes,
    ...BODY,
  ];
  return {
    [`/api/${BATCH_TABLE_NAME}`]: {
      post: {
        operationId: 'batch',
        summary: 'Create, change and delete rows of several tables in one transaction',
        description:
          'Operations run in order in one transaction, each under its own table rules, as its single-row ' +
          'endpoint would run it. The first failure rolls every operation back and is answered with its ' +
          'own status and code; its message starts with "operations[N]: " (0-based). Realtime events are ' +
          'sent after the commit only. Bodies up to 16 MiB.',
        tags: ['batch'],
        security: DATA_SECURITY,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            additionalProperties: false,
            required: ['operations'],
            properties: {
              operations: {
                type: 'array',
                minItems: 1,
                maxItems: MAX_BATCH_OPERATIONS,
                items: { anyOf: writable.flatMap(({ operations }) => operations) },
              },
            },
          }),
        },
        responses: {
          '200': {
            description:
              'Every operation was written: its status and the body its single-row endpoint answers, in order.',
            content: json({
              type: 'object',
              additionalProperties: false,
              required: ['data'],
              properties: { data: { type: 'array', items: { anyOf: resultSchemas(rows) } } },
            }),
          },
          ...errorResponses(codes),
        },
      },
    },
  };
}

/** One operation's result: 201 (POST) or 200 (PATCH) with `{data: row}`, 204 (DELETE) with null. */
function resultSchemas(rows: readonly object[]): object[] {
  return [
    {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'body'],
      properties: {
        status: { enum: [200, 201] },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['data'],
          properties: { data: rows.length === 1 ? rows[0]! : { anyOf: rows } },
        },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'body'],
      properties: { status: { const: 204 }, body: { type: 'null' } },
    },
  ];
}
