/**
 * Checks on JSON values before they are stored. U+0000 (NUL): PostgreSQL text and jsonb cannot
 * hold it, so Rowbase refuses it in stored values on every engine (docs/engines.md). Nesting
 * depth: deeper values would overflow the stack in JSON.stringify and JSON.parse later.
 * Numbers: a non-finite one (JSON's `1e400` parses to Infinity) cannot be stored as sent.
 * The walks are iterative, so a hostile value cannot overflow the stack here either.
 */

/** How deep a json column value may nest (arrays and objects). */
export const MAX_JSON_DEPTH = 64;

/** True when `value` (a string, or a JSON value with nested strings and keys) contains U+0000. */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true;
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (key.includes('\u0000')) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

/**
 * True when `value` is, or holds, a number that is not finite. JSON.parse reads `1e400` as
 * Infinity, which JSON.stringify writes back as null: such a value would be stored as something
 * else than what was sent.
 */
export function containsNonFiniteNumber(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return true;
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (typeof item === 'object' && item !== null) {
      pending.push(...Object.values(item));
    }
  }
  return false;
}

/** True when `value` nests arrays/objects more than `max` levels deep. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
