/**
 * The shape of a batch request (POST /p/{id}/api/batch, contract §18): `{ operations: [ {
 * method, table, id?, body? } ] }` checked before anything is planned or written. Pure: no
 * table is looked up here, so an unknown table is the planner's to refuse.
 */
import { AppError } from '../errors/app-error.js';

/** Most operations one batch may hold (contract §18). */
export const MAX_BATCH_OPERATIONS = 1_000;
/** The path segment of the batch endpoint; no new table may take this name (docs/schema.md). */
export const BATCH_TABLE_NAME = 'batch';

/** The methods a batch operation may use: the data API's single-row writes. */
export type BatchMethod = 'POST' | 'PATCH' | 'DELETE';

/** One operation of a batch, its shape checked: `id` for PATCH and DELETE only, `body` for POST and PATCH only. */
export type BatchOperation =
  | { readonly index: number; readonly method: 'POST'; readonly table: string; readonly body: object }
  | {
      readonly index: number;
      readonly method: 'PATCH';
      readonly table: string;
      readonly id: string;
      readonly body: object;
    }
  | { readonly index: number; readonly method: 'DELETE'; readonly table: string; readonly id: string };

const METHODS: readonly string[] = ['POST', 'PATCH', 'DELETE'];
const OPERATION_KEYS = new Set(['method', 'table', 'id', 'body']);
const EXAMPLE =
  'Send {"operations": [{"method": "POST", "table": "tasks", "body": {"title": "a"}}, ' +
  '{"method": "PATCH", "table": "tasks", "id": "<row id>", "body": {"done": true}}, ' +
  '{"method": "DELETE", "table": "tasks", "id": "<row id>"}]}.';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The prefix every error about one operation carries: its index, 0-based. */
export const operationPrefix = (index: number): string => `operations[${index}]: `;

function refuse(message: string, suggestion: string): never {
  throw new AppError('VALIDATION_FAILED', { message, suggestion });
}

/**
 * Checks the body of a batch request and returns its operations in order. Throws
 * VALIDATION_FAILED naming the first bad operation ("operations[3]: ..."): a body that is not
 * `{ operations: [...] }`, 0 or more than 1,000 operations, an unknown method, a missing
 * table, a nested batch, a missing id (PATCH, DELETE), an id on POST, a missing or extra body.
 */
export function parseBatchRequest(body: unknown): BatchOperation[] {
  if (!isObject(body) || !Array.isArray(body.operations)) refuse('The body must be {"operations": [...]}.', EXAMPLE);
  const extra = Object.keys(body).find((key) => key !== 'operations');
  if (extra !== undefined) refuse(`Unknown field "${extra}" in the batch body.`, `Send only "operations". ${EXAMPLE}`);
  const operations: unknown[] = body.operations;
  if (operations.length === 0 || operations.length > MAX_BATCH_OPERATIONS) {
    refuse(
      `A batch holds 1 to ${MAX_BATCH_OPERATIONS} operations; this one has ${operations.length}.`,
      `Split the operations into batches of at most ${MAX_BATCH_OPERATIONS} (each batch is its own transaction).`,
    );
  }
  return operations.map((operation, index) => parseOperation(operation, index));
}

function parseOperation(operation: unknown, index: number): BatchOperation {
  const at = operationPrefix(index);
  if (!isObject(operation)) refuse(`${at}an operation must be a JSON object.`, EXAMPLE);
  if ('operations' in operation) {
    refuse(`${at}batches do not nest.`, 'Put the inner operations in the outer batch\'s "operations" list.');
  }
  const extra = Object.keys(operation).find((key) => !OPERATION_KEYS.has(key));
  if (extra !== undefined) {
    refuse(
      `${at}unknown field "${extra}".`,
      'An operation has method, table, id (PATCH, DELETE) and body (POST, PATCH).',
    );
  }
  const { method, table, id, body } = operation;
  if (typeof method !== 'string' || !METHODS.includes(method)) {
    refuse(
      `${at}method must be "POST", "PATCH" or "DELETE"${typeof method === 'string' ? `, not "${method}"` : ''}.`,
      'A batch writes rows: use POST (create), PATCH (change) or DELETE, in upper case; read with GET /api/{table}.',
    );
  }
  if (typeof table !== 'string' || table.length === 0) refuse(`${at}table must be a table name.`, EXAMPLE);
  if (table === BATCH_TABLE_NAME) {
    refuse(
      `${at}"${BATCH_TABLE_NAME}" is the batch endpoint, not a table a batch can write: batches do not nest.`,
      `Write rows of an existing table named "${BATCH_TABLE_NAME}" with its single-row endpoints ` +
        `(PATCH and DELETE /api/${BATCH_TABLE_NAME}/{row_id}, POST /api/${BATCH_TABLE_NAME}/bulk).`,
    );
  }
  if (method === 'POST') {
    if (id !== undefined) {
      refuse(`${at}a POST takes no id: the row does not exist yet.`, 'To choose the new row\'s id, put "id" in body.');
    }
    return { index, method, table, body: rowBody(body, at) };
  }
  if (typeof id !== 'string' || id.length === 0) {
    refuse(`${at}a ${method} needs the id of its row.`, `Add "id": "<row id>" to the ${method} operation.`);
  }
  if (method === 'PATCH') return { index, method, table, id, body: rowBody(body, at) };
  if (body !== undefined) refuse(`${at}a DELETE takes no body.`, 'Remove "body" from the DELETE operation.');
  return { index, method: 'DELETE', table, id };
}

function rowBody(body: unknown, at: string): object {
  if (!isObject(body)) refuse(`${at}body must be a JSON object of column values.`, EXAMPLE);
  return body;
}
