/**
 * `client.batch(operations)`: creates, changes and deletes rows of several tables in one
 * transaction (POST /api/batch), each operation typed by its table's generated shapes.
 */
import type { Requester } from './request.js';
import type { CallOptions, DatabaseShape } from './types.js';

/** One operation of a batch: a create, an update or a delete of a row of one of D's tables. */
export type BatchOperation<D extends DatabaseShape<D>> = {
  [N in keyof D & string]:
    | { method: 'POST'; table: N; body: D[N]['Create'] }
    | { method: 'PATCH'; table: N; id: string; body: D[N]['Update'] }
    | { method: 'DELETE'; table: N; id: string };
}[keyof D & string];

/** What one operation answers: its status and the body its single-row endpoint answers. */
export type BatchResult<D extends DatabaseShape<D>, O> = O extends { method: 'DELETE' }
  ? { status: 204; body: null }
  : O extends { method: infer M; table: infer N extends keyof D }
    ? { status: M extends 'POST' ? 201 : 200; body: { data: D[N]['Row'] } }
    : never;

/** The results of a batch, one per operation, in order, each typed by its operation. */
export type BatchResults<D extends DatabaseShape<D>, Ops extends readonly unknown[]> = {
  -readonly [K in keyof Ops]: BatchResult<D, Ops[K]>;
};

/**
 * Sends `operations` (at most 1,000) as one batch and returns their results in order. All or nothing: the
 * first failing operation throws a RowbaseError with its own status and code, whose message
 * starts with `operations[N]:`; then nothing is written.
 */
export async function sendBatch<D extends DatabaseShape<D>, const Ops extends readonly BatchOperation<D>[]>(
  requester: Requester<unknown>,
  operations: Ops,
  options: CallOptions = {},
): Promise<BatchResults<D, Ops>> {
  const answer = await requester.request<{ data: BatchResults<D, Ops> }>('POST', '/api/batch', {
    body: { operations },
    signal: options.signal,
  });
  return answer.data;
}
