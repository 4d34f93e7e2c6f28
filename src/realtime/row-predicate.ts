/**
 * Evaluates a compiled rule or filter (`Expr`, the dialect-neutral SQL tree) on one row in
 * memory, with the semantics the engines give the same tree in SQL: three-valued logic
 * (a comparison with NULL is unknown, and only a true condition matches), `!=` null-safe,
 * text compared by code point (SQLite's BINARY, PostgreSQL's "C" collation), `~` folding
 * ASCII letters only, integers and numbers compared as numbers. A property test
 * (test/scenarios/realtime-predicate-properties.test.ts) checks it against both engines.
 */
import type { Expr } from '../query/sql-tree.js';

/** True when the row satisfies the condition; undefined (no condition) matches every row. */
export type RowPredicate = (row: Readonly<Record<string, unknown>>) => boolean;

type Truth = boolean | null;
type Scalar = string | number | boolean | null;
type Evaluate<T> = (row: Readonly<Record<string, unknown>>) => T;

const MATCH_ALL: RowPredicate = () => true;

/**
 * Compiles `condition` once into a closure over rows. Throws only on trees no compiler of
 * rules or filters produces (a bug, not input).
 */
export function compilePredicate(condition: Expr | undefined): RowPredicate {
  if (condition === undefined) return MATCH_ALL;
  const test = truth(condition);
  return (row) => test(row) === true;
}

function truth(node: Expr): Evaluate<Truth> {
  switch (node.kind) {
    case 'bool': {
      const value = node.value;
      return () => value;
    }
    case 'and':
    case 'or': {
      const items = node.items.map(truth);
      const decisive = node.kind === 'or';
      return (row) => {
        let unknown = false;
        for (const item of items) {
          const value = item(row);
          if (value === decisive) return decisive;
          if (value === null) unknown = true;
        }
        return unknown ? null : !decisive;
      };
    }
    case 'not': {
      const inner = truth(node.expr);
      return (row) => {
        const value = inner(row);
        return value === null ? null : !value;
      };
    }
    case 'is-null': {
      const inner = scalar(node.expr);
      const negated = node.negated;
      return (row) => (inner(row) === null) !== negated;
    }
    case 'compare': {
      const left = scalar(node.left);
      const right = scalar(node.right);
      const op = node.op;
      return (row) => {
        const a = left(row);
        const b = right(row);
        // `!=` is IS DISTINCT FROM / IS NOT: never unknown.
        if (op === '!=') return a === null || b === null ? a !== b : compareValues(a, b) !== 0;
        if (a === null || b === null) return null;
        const order = compareValues(a, b);
        if (Number.isNaN(order)) return null;
        switch (op) {
          case '=':
            return order === 0;
          case '<':
            return order < 0;
          case '<=':
            return order <= 0;
          case '>':
            return order > 0;
          case '>=':
            return order >= 0;
        }
      };
    }
    case 'like': {
      const target = scalar(node.expr);
      const pattern = likeRegExp(node.pattern, { caseInsensitive: node.caseInsensitive });
      const fold = node.caseInsensitive;
      const negated = node.negated;
      return (row) => {
        const value = target(row);
        // Negated matches are null-safe: a null value "does not contain" anything.
        if (value === null) return negated ? true : null;
        const text = fold ? foldAscii(String(value)) : String(value);
        return pattern.test(text) !== negated;
      };
    }
    case 'in': {
      const target = scalar(node.expr);
      const values = node.values.map(scalar);
      return (row) => {
        const value = target(row);
        if (values.length === 0) return false;
        if (value === null) return null;
        let unknown = false;
        for (const candidate of values) {
          const other = candidate(row);
          if (other === null) unknown = true;
          else if (compareValues(value, other) === 0) return true;
        }
        return unknown ? null : false;
      };
    }
    case 'row':
      // Row values only appear in keyset cursor conditions, never in rules or topic filters.
      return () => null;
    case 'path':
      // A relation path (issue 14) reads other rows: memory cannot tell, so it is unknown here
      // (fail closed). Delivery replaces paths by their values first (relation-paths.ts).
      return () => null;
    case 'search-rank':
      // A search's rank only orders list answers; no rule or topic filter holds one.
      return () => null;
    case 'column':
    case 'value':
    case 'null':
    case 'add': {
      // A scalar used as a condition (a boolean column): true, false or unknown.
      const inner = scalar(node);
      return (row) => {
        const value = inner(row);
        return value === null ? null : value === true || (typeof value === 'number' && value !== 0);
      };
    }
  }
}

function scalar(node: Expr): Evaluate<Scalar> {
  switch (node.kind) {
    case 'column': {
      const name = node.name;
      return (row) => toScalar(row[name]);
    }
    case 'value': {
      const value = toScalar(node.value);
      return () => value;
    }
    case 'null':
      return () => null;
    case 'add': {
      const left = scalar(node.left);
      const right = scalar(node.right);
      return (row) => {
        const a = left(row);
        const b = right(row);
        return typeof a === 'number' && typeof b === 'number' ? a + b : null;
      };
    }
    default: {
      const inner = truth(node);
      return (row) => inner(row);
    }
  }
}

/** Row values as SQL sees them: json values (objects, arrays) only ever meet IS NULL. */
function toScalar(value: unknown): Scalar {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/** <0, 0, >0 as SQL orders the two values; NaN when they cannot be compared. */
function compareValues(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  const x = typeof a === 'boolean' ? Number(a) : a;
  const y = typeof b === 'boolean' ? Number(b) : b;
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'string' && typeof y === 'string') return compareCodePoints(x, y);
  return Number.NaN;
}

/**
 * Orders strings by Unicode code point (the byte order of UTF-8). JavaScript's `<` orders
 * UTF-16 code units, which puts characters above U+FFFF before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (0xD800-0xDFFF) stand for code points above every BMP character.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

function foldAscii(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (s) => s.toLowerCase()) : text;
}

/** A LIKE pattern (`%`, `_`, `\` escapes) as an anchored regular expression over code points. */
function likeRegExp(pattern: string, { caseInsensitive }: { readonly caseInsensitive: boolean }): RegExp {
  const source = caseInsensitive ? foldAscii(pattern) : pattern;
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\' && i + 1 < source.length) out += escapeRegExp(source[++i]!);
    else if (ch === '%') out += '[\\s\\S]*';
    else if (ch === '_') out += '[\\s\\S]';
    else out += escapeRegExp(ch);
  }
  return new RegExp(`^${out}$`, 'u');
}

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}
