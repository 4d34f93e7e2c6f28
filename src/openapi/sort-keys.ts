/** Deterministic JSON: object keys sorted at every level, array order kept. */

/** A deep copy of `value` whose objects have their keys in sorted order. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out as T;
}
