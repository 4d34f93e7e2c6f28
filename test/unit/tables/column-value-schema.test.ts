/**
 * One column-to-JSON-Schema mapping (src/tables/column-value-schema.ts): the server's
 * validators and the OpenAPI document state the same value rules (type, length, enum,
 * bounds) for every column, and differ only where their profiles say so.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnSchema } from '../../../src/openapi/column-schemas.js';
import { columnJsonSchema } from '../../../src/tables/column-schema.js';
import type { ColumnDefinition } from '../../../src/schema/definition.js';

const column = (extra: Partial<ColumnDefinition> & Pick<ColumnDefinition, 'type'>): ColumnDefinition => ({
  name: 'c',
  required: true,
  unique: false,
  ...extra,
});
const SHARED = ['type', 'maxLength', 'enum', 'minimum', 'maximum'] as const;
const shared = (schema: object) =>
  Object.fromEntries(SHARED.filter((k) => k in schema).map((k) => [k, (schema as Record<string, unknown>)[k]]));

const CASES: [string, ColumnDefinition][] = [
  ['text', column({ type: 'text' })],
  ['text with max_length', column({ type: 'text', max_length: 20 })],
  ['text with enum', column({ type: 'text', enum: ['open', 'closed'] })],
  ['integer', column({ type: 'integer' })],
  ['integer with bounds beyond 2^53', column({ type: 'integer', min: -1e300, max: 1e300 })],
  ['integer with bounds', column({ type: 'integer', min: 1, max: 5 })],
  ['number with bounds', column({ type: 'number', min: 0, max: 1 })],
  ['number', column({ type: 'number' })],
  ['boolean', column({ type: 'boolean' })],
];

describe('column value schemas: validators and the OpenAPI document agree', () => {
  for (const [name, definition] of CASES) {
    it(`${name}: the same type, length, enum and bounds on both sides`, () => {
      const validator = columnJsonSchema(definition, { nullable: false });
      for (const direction of ['read', 'create', 'update'] as const)
        assert.deepEqual(
          shared(columnSchema(definition, direction, { nullable: false })),
          shared(validator),
          direction,
        );
    });
  }

  it('integers are bounded by ±(2^53-1) even when the column allows more', () => {
    assert.deepEqual(
      shared(columnJsonSchema(column({ type: 'integer', min: -1e300, max: 1e300 }), { nullable: false })),
      { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    );
  });

  it('text: the validator refuses NUL and lone surrogates by keyword; the document, NUL by pattern (no enum)', () => {
    assert.deepEqual(columnJsonSchema(column({ type: 'text', max_length: 3 }), { nullable: false }), {
      type: 'string',
      noNul: true,
      wellFormed: true,
      maxLength: 3,
    });
    assert.deepEqual(columnSchema(column({ type: 'text', max_length: 3 }), 'read', { nullable: false }), {
      type: 'string',
      maxLength: 3,
      pattern: '^[^\\u0000]*$',
      description: 'Text without U+0000 (NUL) or unpaired UTF-16 surrogates.',
    });
    assert.equal('pattern' in columnSchema(column({ type: 'text', enum: ['a'] }), 'read', { nullable: false }), false);
  });
});
