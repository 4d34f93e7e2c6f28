/**
 * The one place names from a project's schema become parts of generated artefacts: type
 * names, TypeScript property keys and string literals. Table and column names already match
 * `^[a-z][a-z0-9_]{0,62}$`; everything still goes through these functions, never straight
 * into generated text.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript string literal for any string (JSON's escaping is valid TypeScript). */
export function tsString(value: string): string {
  return JSON.stringify(value);
}

/**
 * A name quoted for a comment: a string literal that cannot end the comment (`*\/`) or
 * the line (U+2028, U+2029 are line terminators in TypeScript).
 */
export function tsCommentName(value: string): string {
  return tsString(value)
    .replace(/\*\//g, '*\\/')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A TypeScript literal for an enum value or another JSON scalar. */
export function tsLiteral(value: string | number | boolean | null): string {
  return typeof value === 'string' ? tsString(value) : JSON.stringify(value);
}

/** A property key: bare when it is an identifier, else a quoted string. */
export function tsPropertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : tsString(name);
}

/** `user_profiles` → `UserProfiles`; anything that is not a letter or digit separates words. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  // A type name cannot start with a digit; table names never do, but stay safe for any input.
  return /^[A-Za-z]/.test(joined) ? joined : `T${joined}`;
}

/**
 * Type names for tables, keyed by table name: PascalCase, and when two tables map to the
 * same name (`a_b` and `a__b`), the later one in name order gets a numeric suffix.
 */
export function typeNames(tableNames: readonly string[]): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const table of [...tableNames].sort()) {
    const base = pascalCase(table);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    names.set(table, name);
  }
  return names;
}
