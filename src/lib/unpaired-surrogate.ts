/**
 * Unpaired UTF-16 surrogates: a JSON escape such as "\ud800" with no partner is not a
 * character. UTF-8 cannot encode it, so each engine stores something else instead (SQLite
 * three U+FFFD, PostgreSQL one) and length checks count it as one character. Rowbase refuses
 * it wherever text enters, beside U+0000 (nul-character.ts), so that both engines store what
 * was sent. Paired surrogates (an emoji written "\ud83d\ude00") are well-formed and accepted.
 */

/** What to tell a caller who sent one; the escape is spelt out so that it reads as the culprit. */
export const UNPAIRED_SURROGATE_SUGGESTION =
  'Send well-formed UTF-16/UTF-8 text: a lone surrogate such as \\ud800 cannot ' +
  'be stored. Pair it (an emoji is two, "\\ud83d\\ude00") or remove it.';

// Node 20 has String.prototype.isWellFormed; the ES2022 lib the project compiles against does not name it.
type WellFormedCheck = { isWellFormed(): boolean };

/** True when `text` holds a UTF-16 surrogate that is not half of a pair. */
export function hasUnpairedSurrogate(text: string): boolean {
  return !(text as unknown as WellFormedCheck).isWellFormed();
}

/** The 0-based index of the first unpaired surrogate in `text`, or -1 when it is well-formed. */
export function unpairedSurrogateIndex(text: string): number {
  if (!hasUnpairedSurrogate(text)) return -1;
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(at + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      at += 1;
      continue;
    }
    return at;
  }
  return -1;
}

/** The first unpaired surrogate of `text` as its JSON escape (e.g. `\ud800`), for messages; undefined when none. */
export function describeUnpairedSurrogate(text: string): string | undefined {
  const at = unpairedSurrogateIndex(text);
  return at < 0 ? undefined : `\\u${text.charCodeAt(at).toString(16).padStart(4, '0')}`;
}

/**
 * Where in a JSON value an unpaired surrogate sits: the path
 * (`rows[2].title`, '' for the root) and whether it is in a key.
 */
export interface SurrogateLocation {
  readonly path: string;
  readonly inKey: boolean;
  /** The surrogate as its JSON escape, e.g. `\ud800`. */
  readonly escape: string;
}

/**
 * Finds the first unpaired surrogate in a string or JSON value (nested strings and object
 * keys included); undefined when there is none. The walk is iterative, so a deeply nested
 * hostile value cannot overflow the stack. Paths read like JavaScript: `a.b[2]`.
 */
export function findUnpairedSurrogate(value: unknown): SurrogateLocation | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: item, path } = pending.pop()!;
    if (typeof item === 'string') {
      const found = describeUnpairedSurrogate(item);
      if (found !== undefined) return { path, inKey: false, escape: found };
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1)
        pending.push({ value: item[index], path: `${path}[${index}]` });
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (const [key] of entries) {
        const found = describeUnpairedSurrogate(key);
        if (found !== undefined) return { path, inKey: true, escape: found };
      }
      for (const [key, child] of entries.reverse())
        pending.push({ value: child, path: path === '' ? key : `${path}.${key}` });
    }
  }
  return undefined;
}

/** True when `value` (a string, or a JSON value with nested strings and keys) holds an unpaired surrogate. */
export function containsUnpairedSurrogate(value: unknown): boolean {
  return findUnpairedSurrogate(value) !== undefined;
}
