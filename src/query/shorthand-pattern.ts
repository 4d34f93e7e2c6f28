/**
 * The shorthand filter syntax (contract §6) as one regular expression per column type, for
 * the OpenAPI document: a `pattern` that accepts what `parseShorthand` (shorthand.ts) accepts
 * for a column of that type and refuses the rest, so fuzzers and client generators stop
 * sending `title=hello`. Ranges no pattern can state are left to the server: integers beyond
 * ±(2^53−1), numbers that overflow to infinity and impossible dates (February 30th); so are
 * unpaired UTF-16 surrogates, which JSON Schema regex dialects do not let a pattern exclude
 * portably (the parameter's description says so).
 */
import { ISO_TIMESTAMP_PATTERN } from '../lib/timestamps.js';
import type { ValueType } from './sql-tree.js';
import { MAX_IN_VALUES } from './shorthand.js';

/** The value text each type accepts (what `coerceText` turns into a value), unanchored. */
const VALUE: Readonly<Record<Exclude<ValueType, 'json'>, string>> = Object.freeze({
  text: '[\\s\\S]*',
  integer: '-?\\d+',
  // Number(text): decimal with optional sign and exponent, or 0x/0b/0o, surrounded by any whitespace.
  number: '\\s*(?:[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+)\\s*',
  boolean: '(?:true|false)',
  timestamp: `(?:@now|${ISO_TIMESTAMP_PATTERN.slice(1, -1)})`,
});

/** The inside of a quoted `in` item: `\"` and `\\` are escapes, any other backslash is itself. */
const QUOTED_TEXT = '(?:\\\\["\\\\]|[^"\\\\]|\\\\(?!["\\\\]))*';

/** One item of `in.(...)`: unquoted (trimmed, up to the next comma) or quoted. */
function inItem(type: Exclude<ValueType, 'json'>): string {
  if (type === 'text') return `\\s*(?:"${QUOTED_TEXT}"\\s*|(?:[^",\\s][^,]*)?)`;
  // Typed values hold no quote, comma or backslash, so quoting only wraps them.
  const value = VALUE[type];
  return `\\s*(?:"${value}"\\s*|${value}\\s*)`;
}

/** The `pattern` a shorthand filter parameter on a column of `type` must match (anchored). */
export function shorthandPattern(type: ValueType): string {
  if (type === 'json') return '^is\\.(?:null|not_null)$';
  const compare = type === 'text' ? '(?:eq|neq|gt|gte|lt|lte|like|ilike)' : '(?:eq|neq|gt|gte|lt|lte)';
  const item = inItem(type);
  const list = `in\\.\\((?!\\s*\\))${item}(?:,${item}){0,${MAX_IN_VALUES - 1}}\\)`;
  const is = type === 'boolean' ? 'is\\.(?:null|not_null|true|false)' : 'is\\.(?:null|not_null)';
  return `^(?:${compare}\\.${VALUE[type]}|${list}|${is})$`;
}
