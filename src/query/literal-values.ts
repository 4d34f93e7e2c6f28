/** Small helpers for filter messages and LIKE patterns, shared by the filter compiler and shorthand filters. */
import type { ValueType } from './sql-tree.js';

/** Escapes `\`, `%` and `_` so that `text` matches itself inside a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The sorted, comma-separated names of `columns`, for suggestions. */
export function listNames(columns: Iterable<string>): string {
  return [...columns].sort().join(', ');
}

/** A plain-words description of what fits a type, for messages. */
export function describeType(type: ValueType): string {
  switch (type) {
    case 'text':
      return 'a quoted string (text)';
    case 'integer':
      return 'a whole number (integer)';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false (boolean)';
    case 'timestamp':
      return 'a quoted ISO date such as "2024-01-31T12:00:00Z" or @now (timestamp)';
    case 'json':
      return 'null (json columns can only be compared with null)';
  }
}

/** A correct comparison of `column` for its type, for suggestions. */
export function exampleFor(column: string, type: ValueType): string {
  const examples: Record<ValueType, string> = {
    text: `${column} = "x"`,
    integer: `${column} = 3`,
    number: `${column} >= 1.5`,
    boolean: `${column} = true`,
    timestamp: `${column} < @now`,
    json: `${column} != null`,
  };
  return examples[type];
}
