/**
 * The one mapping from a declared column to the JSON Schema of its values, shared by the
 * server's validators (`column-schema.ts`, compiled by ajv) and the OpenAPI document
 * (`../openapi/column-schemas.ts`). The value rules both state alike live here: the JSON type
 * of each column type, the length and enum of text, the bounds of numbers (integers never
 * beyond ±(2^53-1)).
 *
 * Where the two must differ, a `ValueSchemaProfile` supplies the words: the validator states
 * the NUL and surrogate rules with its own keywords and checks timestamps with its own format,
 * while the document states NUL by `pattern` and timestamps as `date-time` (standard keywords a
 * client's tools understand), and json depth only in prose. Keeping those in profiles rather
 * than in one schema keeps both outputs exactly what they were.
 */
import type { ColumnDefinition } from '../schema/definition.js';

/** The column options a value schema depends on. */
export type ColumnValueRules = Pick<ColumnDefinition, 'type' | 'max_length' | 'enum' | 'min' | 'max'>;

/** The keywords one consumer adds where the consumers differ. */
export interface ValueSchemaProfile {
  /**
   * The whole schema of a text column's values, built around `rules` (its `maxLength` and
   * `enum`, decided here); each consumer places its own keywords where its output always had them.
   */
  text(rules: Readonly<Record<string, unknown>>, column: ColumnValueRules): Record<string, unknown>;
  /** The whole schema of a timestamp's values. */
  timestamp(): Record<string, unknown>;
  /** The whole schema of a json column's values (JSON Schema cannot type "any JSON" more narrowly). */
  json(): Record<string, unknown>;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** The JSON Schema of a column's non-null values, with `profile`'s keywords where consumers differ. */
export function columnValueSchema(column: ColumnValueRules, profile: ValueSchemaProfile): Record<string, unknown> {
  switch (column.type) {
    case 'text':
      return profile.text(
        {
          ...(column.max_length !== undefined && { maxLength: column.max_length }),
          ...(column.enum && { enum: [...column.enum] }),
        },
        column,
      );
    case 'integer':
      return {
        type: 'integer',
        minimum: Math.max(column.min ?? -SAFE, -SAFE),
        maximum: Math.min(column.max ?? SAFE, SAFE),
      };
    case 'number':
      return {
        type: 'number',
        ...(column.min !== undefined && { minimum: column.min }),
        ...(column.max !== undefined && { maximum: column.max }),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return profile.timestamp();
    case 'json':
      return profile.json();
  }
}
