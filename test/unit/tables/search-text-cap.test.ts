/**
 * The cap on a row's searched text (docs/schema.md, full-text search): 256 KiB of UTF-8 shared
 * by the search columns, for writes through the API and for imported stored rows alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../../src/errors/app-error.js';
import { parseDefinition } from '../../../src/tables/parse-definition.js';
import { buildRowValidators, buildStoredRowCheck, SEARCH_TEXT_BYTES } from '../../../src/tables/row-validator.js';

const table = parseDefinition('notes', {
  columns: [
    { name: 'title', type: 'text' },
    { name: 'body', type: 'text' },
    { name: 'other', type: 'text' },
  ],
  search: ['title', 'body'],
});
const limit = SEARCH_TEXT_BYTES / 2;
const STAMP = '2026-01-01T00:00:00.000Z';
const stored = (values: Record<string, unknown>) => ({ id: 'r1', created_at: STAMP, updated_at: STAMP, ...values });

describe('searched text cap', () => {
  const validators = buildRowValidators(table);
  const check = buildStoredRowCheck(table);

  it('a search column of exactly its share is accepted; one byte more is VALIDATION_FAILED naming it', () => {
    assert.doesNotThrow(() => validators.create({ title: 'a'.repeat(limit) }));
    assert.throws(
      () => validators.update({ body: 'a'.repeat(limit + 1) }),
      (error: unknown) => isAppError(error) && error.code === 'VALIDATION_FAILED' && /body/.test(error.message),
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    assert.throws(() => validators.create({ title: 'é'.repeat(limit / 2 + 1) }), /at most/);
    assert.doesNotThrow(() => validators.create({ title: 'é'.repeat(limit / 2) }));
  });

  it('columns outside search are not capped', () => {
    assert.doesNotThrow(() => validators.create({ other: 'a'.repeat(SEARCH_TEXT_BYTES + 1) }));
  });

  it('an imported stored row over the cap is a problem naming the column', () => {
    assert.equal(check(stored({ title: 'a'.repeat(limit), body: null, other: null })), undefined);
    assert.deepEqual(check(stored({ title: 'x', body: '€'.repeat(limit / 3 + 1), other: null })), {
      column: 'body',
      reason: `a search column holds at most ${limit} bytes of UTF-8 text`,
    });
  });
});
