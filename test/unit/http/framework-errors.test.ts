/**
 * Every error Fastify can raise with a 4xx status is the client's: it becomes a 4xx catalogue
 * code (never INTERNAL_ERROR), so it is neither answered 500 nor logged as an error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCodes } from 'fastify';
import { toAppError } from '../../../src/http/error-handler.js';

type ErrorConstructor = new (...args: unknown[]) => Error & { statusCode?: number; code: string };

describe('framework errors → catalogue codes', () => {
  const constructors = Object.values(errorCodes as unknown as Record<string, ErrorConstructor>);

  it('maps each Fastify error with a 4xx status to a 4xx code other than INTERNAL_ERROR', () => {
    const clientErrors = constructors
      .map((Make) => new Make('a', 'b', 'c'))
      .filter((error) => (error.statusCode ?? 500) < 500);
    assert.ok(clientErrors.length >= 10, 'Fastify lists its client errors');
    for (const error of clientErrors) {
      const mapped = toAppError(error);
      assert.ok(
        mapped.status >= 400 && mapped.status < 500,
        `${error.code} (${error.statusCode}) → ${mapped.status} ${mapped.code}`,
      );
      assert.notEqual(mapped.code, 'INTERNAL_ERROR', error.code);
    }
  });

  it('maps the ones a client triggers to the code that says what to fix', () => {
    const expected: [string, number, string][] = [
      ['FST_ERR_ROUTE_MISSING_CONTENT_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'PAYLOAD_TOO_LARGE'],
      ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'INVALID_JSON'],
      ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'INVALID_JSON'],
      ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'INVALID_JSON'],
      ['FST_ERR_BAD_URL', 400, 'BAD_REQUEST'],
      ['FST_ERR_MAX_PARAM_LENGTH', 404, 'NOT_FOUND'],
      ['FST_ERR_NOT_FOUND', 404, 'NOT_FOUND'],
      ['FST_ERR_VALIDATION', 400, 'BAD_REQUEST'],
    ];
    const byCode = errorCodes as unknown as Record<string, ErrorConstructor>;
    for (const [code, status, catalogueCode] of expected) {
      const mapped = toAppError(new byCode[code]!('QUERY'));
      assert.deepEqual([mapped.status, mapped.code], [status, catalogueCode], code);
    }
  });

  it('keeps real faults (a 5xx or no status) INTERNAL_ERROR', () => {
    assert.equal(toAppError(new Error('boom')).code, 'INTERNAL_ERROR');
    assert.equal(toAppError(new errorCodes.FST_ERR_REP_INVALID_PAYLOAD_TYPE('object')).code, 'INTERNAL_ERROR');
  });
});
