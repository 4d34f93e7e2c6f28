/**
 * U+0000 (NUL) in stored text: PostgreSQL text and jsonb cannot hold it, so Rowbase refuses it
 * in stored values on every engine (docs/engines.md).
 */

/** True when `value` (a string, or a JSON value with nested strings and keys) contains U+0000. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item));
  }
  return false;
}
