/**
 * Shorthand filters (contract §6): a query parameter `column=op.value`, such as
 * `done=eq.false`, `title=ilike.*urgent*`, `status=in.(open,"on hold")` or `due=is.null`,
 * turned into a SQL tree expression with the value coerced to the column's type.
 */
import { AppError } from '../errors/app-error.js';
import type { CompareOp, Expr, ValueType } from './sql-tree.js';
import type { PathResolver } from './filter-operands.js';
import { normaliseTimestamp } from '../lib/timestamps.js';
import { describeType, escapeLike, listNames } from './literal-values.js';
import { shortenSource } from './filter-parser.js';
import { describeUnpairedSurrogate, UNPAIRED_SURROGATE_SUGGESTION } from '../lib/unpaired-surrogate.js';

/** The shorthand operators, in the order they are listed to callers. */
export const SHORTHAND_OPERATORS = Object.freeze([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'in',
  'is',
] as const);
/** One of SHORTHAND_OPERATORS. */
export type ShorthandOperator = (typeof SHORTHAND_OPERATORS)[number];

/** Most values accepted by one `in.(...)` list. */
export const MAX_IN_VALUES = 100;

const COMPARE: Readonly<Record<string, CompareOp>> = Object.freeze({
  eq: '=',
  neq: '!=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
});
const IS_VALUES = 'is.null, is.not_null, is.true, is.false';

/**
 * Parses the shorthand filter `column=raw` against the table's columns; a timestamp value
 * `@now` is `now` (the request's ISO time), as in `filter=`.
 * Throws AppError VALIDATION_FILTER with a message starting `column=raw:` for an unknown
 * column (suggestion lists the columns), an unknown operator (suggestion lists the
 * operators), a value that does not fit the column's type, like/ilike on a non-text
 * column, a malformed or over-long `in` list, anything but is.null/is.not_null on json, and a
 * value holding an unpaired UTF-16 surrogate.
 */
export function parseShorthand(
  column: string,
  raw: string,
  columns: ReadonlyMap<string, ValueType>,
  now: string,
  paths?: PathResolver,
): Expr {
  const label = `${shortenSource(column)}=${shortenSource(raw)}`;
  const fail = (detail: string, suggestion: string): AppError =>
    new AppError('VALIDATION_FILTER', { message: `${label}: ${detail}`, suggestion });

  const surrogate = describeUnpairedSurrogate(raw);
  // As in filter=: no engine can compare with it as sent, so it is refused rather than matched.
  if (surrogate !== undefined)
    throw fail(
      `the value holds an unpaired UTF-16 surrogate ${surrogate}, which is not a character`,
      UNPAIRED_SURROGATE_SUGGESTION,
    );

  // A relation path (`owner.name=eq.Ada`, contract §13) reads the related row's column.
  const path = column.includes('.') && paths ? paths('row', column.split('.'), null) : undefined;
  if (path && 'detail' in path) throw fail(path.detail, path.suggestion);
  const type = path ? path.type : columns.get(column);
  if (type === undefined) {
    throw fail(`unknown column "${shortenSource(column)}"`, `Use one of the columns: ${listNames(columns.keys())}.`);
  }
  const dot = raw.indexOf('.');
  const op = dot === -1 ? raw : raw.slice(0, dot);
  if (!(SHORTHAND_OPERATORS as readonly string[]).includes(op)) {
    throw fail(
      `unknown operator "${shortenSource(op)}"`,
      `Write column=op.value with op one of ${SHORTHAND_OPERATORS.join(', ')}, for example: ${example(column, type)}.`,
    );
  }
  if (dot === -1) throw fail(`expected a value after "${op}."`, `For example: ${example(column, type)}.`);
  const text = raw.slice(dot + 1);
  const target: Expr = path ? path.expr : Object.freeze({ kind: 'column', name: column });

  const coerce = (value: string): Expr => {
    const coerced = type === 'timestamp' && value === '@now' ? now : coerceText(value, type);
    if (coerced === undefined) {
      throw fail(
        `expected ${describeType(type)} for column "${column}", found "${shortenSource(value)}"`,
        type === 'json'
          ? `Filter json columns with ${IS_VALUES.split(', ').slice(0, 2).join(' or ')}.`
          : `For example: ${example(column, type)}.`,
      );
    }
    return Object.freeze({ kind: 'value', value: coerced, type });
  };

  switch (op as ShorthandOperator) {
    case 'like':
    case 'ilike': {
      if (type !== 'text') {
        throw fail(
          `${op} needs a text column, but "${column}" is ${type}`,
          `Use eq, neq, gt, gte, lt, lte, in or is, for example: ${example(column, type)}.`,
        );
      }
      // Escape the LIKE wildcards the caller wrote literally, then let `*` mean "anything".
      const pattern = escapeLike(text).replace(/\*/g, '%');
      return Object.freeze({ kind: 'like', expr: target, pattern, caseInsensitive: op === 'ilike', negated: false });
    }
    case 'in': {
      const items = parseInList(text, fail, column);
      return Object.freeze({ kind: 'in', expr: target, values: Object.freeze(items.map(coerce)) });
    }
    case 'is':
      return parseIs(text, target, type, fail, column);
    default:
      return Object.freeze({ kind: 'compare', op: COMPARE[op]!, left: target, right: coerce(text) });
  }
}

function parseIs(
  text: string,
  target: Expr,
  type: ValueType,
  fail: (detail: string, suggestion: string) => AppError,
  column: string,
): Expr {
  if (text === 'null' || text === 'not_null')
    return Object.freeze({ kind: 'is-null', expr: target, negated: text === 'not_null' });
  if ((text === 'true' || text === 'false') && type === 'boolean') {
    return Object.freeze({
      kind: 'compare',
      op: '=',
      left: target,
      right: Object.freeze({ kind: 'value', value: text === 'true', type: 'boolean' }),
    });
  }
  if (text === 'true' || text === 'false') {
    throw fail(
      `is.${text} needs a boolean column, but "${column}" is ${type}`,
      `Use is.null or is.not_null, for example: ${column}=is.null.`,
    );
  }
  throw fail(`expected one of ${IS_VALUES}, found "is.${shortenSource(text)}"`, `For example: ${column}=is.null.`);
}

/** Coerces the text of a shorthand value to `type`, or returns undefined when it does not fit. */
function coerceText(text: string, type: ValueType): unknown {
  switch (type) {
    case 'text':
      return text;
    case 'integer': {
      const value = Number(text);
      return /^-?\d+$/.test(text) && Number.isSafeInteger(value) ? value : undefined;
    }
    case 'number': {
      const value = Number(text);
      // Number('') is 0: an empty value is a mistake, not zero.
      return text.trim() !== '' && Number.isFinite(value) ? value : undefined;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'timestamp':
      return normaliseTimestamp(text);
    case 'json':
      return undefined;
  }
}

/**
 * Splits `(a,b,"c,d")` into its items. Quoted items may hold commas, with `\"` and `\\` as
 * escapes; whitespace around items is ignored (quote an item to keep it).
 */
function parseInList(text: string, fail: (detail: string, suggestion: string) => AppError, column: string): string[] {
  const suggestion =
    'Write in.(a,b,c), quoting values that ' + `contain commas, for example: ${column}=in.(open,"on hold").`;
  if (!text.startsWith('(') || !text.endsWith(')') || text.length < 2) {
    throw fail('expected a list in parentheses after "in."', suggestion);
  }
  const body = text.slice(1, -1);
  if (body.trim() === '') throw fail('in needs at least one value', suggestion);
  const items: string[] = [];
  let at = 0;
  while (at <= body.length) {
    while (at < body.length && /\s/.test(body[at]!)) at += 1;
    let item = '';
    if (body[at] === '"') {
      at += 1;
      let closed = false;
      while (at < body.length) {
        const char = body[at]!;
        if (char === '"') {
          closed = true;
          at += 1;
          break;
        }
        if (char === '\\' && (body[at + 1] === '"' || body[at + 1] === '\\')) {
          item += body[at + 1];
          at += 2;
          continue;
        }
        item += char;
        at += 1;
      }
      if (!closed) throw fail('unterminated quoted value in the in list', suggestion);
      while (at < body.length && /\s/.test(body[at]!)) at += 1;
      if (at < body.length && body[at] !== ',')
        throw fail('expected "," after a quoted value in the in list', suggestion);
    } else {
      const comma = body.indexOf(',', at);
      const end = comma === -1 ? body.length : comma;
      item = body.slice(at, end).trim();
      at = end;
    }
    items.push(item);
    if (items.length > MAX_IN_VALUES)
      throw fail(
        `in accepts at most ${MAX_IN_VALUES} values`,
        `Split the list over several requests, or use a filter= range.`,
      );
    at += 1; // past the comma (or past the end, which ends the loop)
  }
  return items;
}

function example(column: string, type: ValueType): string {
  const examples: Record<ValueType, string> = {
    text: `${column}=eq.x`,
    integer: `${column}=gte.3`,
    number: `${column}=gte.1.5`,
    boolean: `${column}=is.true`,
    timestamp: `${column}=lt.2024-01-31T00:00:00Z`,
    json: `${column}=is.null`,
  };
  return examples[type];
}
