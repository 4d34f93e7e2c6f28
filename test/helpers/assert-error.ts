/**
 * Assertions on the error envelope (contract §7) shared by the scenario tests.
 */
import assert from 'node:assert/strict';
import type { TestResponse } from './test-server.js';

/**
 * Asserts that a response is the error envelope with this status and code, that
 * code/message/suggestion are three non-empty strings and that nothing else is in the body.
 * Throws an AssertionError otherwise.
 */
export function assertError(
  response: Pick<TestResponse, 'status' | 'body' | 'text'>,
  status: number,
  code: string,
): void {
  assert.equal(response.status, status, `expected ${status} ${code}, got ${response.status}: ${response.text}`);
  assert.equal(response.body?.error?.code, code, `expected ${code}, got ${response.text}`);
  assertEnvelope(response);
}

/**
 * Asserts the body is exactly `{ error: { code, message, suggestion } }` with non-empty strings,
 * plus at most the optional `field` member docs/errors.md documents (a non-empty string).
 */
export function assertEnvelope(response: Pick<TestResponse, 'body' | 'text'>): void {
  assert.deepEqual(Object.keys(response.body ?? {}), ['error'], `not an error envelope: ${response.text}`);
  const members = Object.keys(response.body.error).filter((member) => member !== 'field');
  assert.deepEqual(members.sort(), ['code', 'message', 'suggestion'], response.text);
  if ('field' in response.body.error)
    assert.ok(typeof response.body.error.field === 'string' && response.body.error.field.length > 0, response.text);
  for (const field of ['code', 'message', 'suggestion'] as const) {
    const value: unknown = response.body.error[field];
    assert.equal(typeof value, 'string', `${field} is not a string: ${response.text}`);
    assert.ok((value as string).length > 0, `${field} is empty: ${response.text}`);
  }
  assert.match(response.body.error.code, /^[A-Z][A-Z0-9_]*$/);
}

/** Asserts the error message mentions `fragment` (a column, a row index, a position). */
export function assertMessageIncludes(response: Pick<TestResponse, 'body' | 'text'>, fragment: string | RegExp): void {
  const message: string = response.body?.error?.message ?? '';
  if (typeof fragment === 'string') assert.ok(message.includes(fragment), `message "${message}" lacks "${fragment}"`);
  else assert.match(message, fragment);
}
