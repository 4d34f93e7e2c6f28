/**
 * Cursor paging (contract §13): `meta.next_cursor` names the last row of a page by the values
 * of its sort keys (id last), and `after=<cursor>` continues strictly after that row (keyset
 * paging: an index walk from that point, so page 10,000 costs what page 1 costs).
 *
 * A cursor is opaque: `base64url(JSON payload) "." base64url(HMAC-SHA256)`. The payload holds
 * the key values and a digest of the request's scope (table, normalised sort, filter and
 * shorthand filters); the HMAC is keyed per project, so a cursor that was edited, made for
 * another sort or filter, or for another table or project, is refused with VALIDATION_FILTER.
 * Pure: no I/O (hashing is computation).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { Expr, OrderTerm, ValueType } from './sql-tree.js';

/** Longest accepted `after` value; real cursors are far shorter. */
const MAX_CURSOR_LENGTH = 4096;
const VERSION = 1;

interface Payload {
  readonly v: number;
  /** Digest of the scope the cursor belongs to. */
  readonly s: string;
  /** The last row's values of the sort keys, in order. */
  readonly k: readonly unknown[];
}

/** A digest of what a cursor is bound to: the table, the order and the filters. */
export function cursorScope(
  table: string,
  orderBy: readonly OrderTerm[],
  filters: readonly (readonly [string, string])[],
): string {
  const order = orderBy.map((term) => `${term.descending ? '-' : ''}${term.column}`).join(',');
  const sorted = [...filters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([table, order, sorted]))
    .digest('base64url')
    .slice(0, 22);
}

/** The cursor that continues after `row` (which must hold every sort column). */
export function encodeCursor(
  key: string,
  scope: string,
  orderBy: readonly OrderTerm[],
  row: Readonly<Record<string, unknown>>,
): string {
  const payload: Payload = { v: VERSION, s: scope, k: orderBy.map((term) => row[term.column] ?? null) };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(key, body)}`;
}

/**
 * The sort-key values a cursor carries. Throws VALIDATION_FILTER when it is malformed, was
 * tampered with, or belongs to another table, project, sort or filter.
 */
export function decodeCursor(key: string, scope: string, orderBy: readonly OrderTerm[], cursor: string): unknown[] {
  const refuse = (detail: string) =>
    new AppError('VALIDATION_FILTER', {
      message: `after: ${detail}`,
      suggestion:
        'Pass the meta.next_cursor of the previous page unchanged, with the same ' +
        'sort and filter as that request; to start over, leave after out.',
    });
  const dot = cursor.indexOf('.');
  if (cursor.length > MAX_CURSOR_LENGTH || dot <= 0) throw refuse('not a cursor Rowbase issued');
  const body = cursor.slice(0, dot);
  const expected = Buffer.from(sign(key, body));
  const given = Buffer.from(cursor.slice(dot + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw refuse('the cursor was changed, or comes from another project or table');
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw refuse('not a cursor Rowbase issued');
  }
  if (payload.v !== VERSION || !Array.isArray(payload.k) || payload.k.length !== orderBy.length)
    throw refuse('the cursor belongs to another sort or filter');
  if (payload.s !== scope) throw refuse('the cursor belongs to another sort or filter');
  return [...payload.k];
}

/**
 * The condition "strictly after the row with these key values" in the order `orderBy`.
 * Nulls sort first ascending and last descending on every engine (see the dialects), so a
 * null key is the smallest value. Columns in `notNull` (system columns, `required` ones) skip
 * the null cases, and the first key also gets a plain bound (`c >= v`, or `c <= v` descending),
 * so that both engines start the index scan at the cursor instead of filtering from the start.
 */
export function keysetCondition(
  orderBy: readonly OrderTerm[],
  values: readonly unknown[],
  types: ReadonlyMap<string, ValueType>,
  notNull: ReadonlySet<string> = new Set(),
): Expr {
  const row = rowValueCondition(orderBy, values, types, notNull);
  if (row) return row;
  const alternatives: Expr[] = [];
  for (let i = 0; i < orderBy.length; i++) {
    const equalBefore = orderBy.slice(0, i).map((term, j) => equalTo(term, values[j], types));
    const beyond = beyondValue(orderBy[i]!, values[i], types, notNull);
    if (beyond === undefined) continue;
    alternatives.push(equalBefore.length === 0 ? beyond : { kind: 'and', items: [...equalBefore, beyond] });
  }
  const after: Expr =
    alternatives.length === 0
      ? { kind: 'bool', value: false }
      : alternatives.length === 1
        ? alternatives[0]!
        : { kind: 'or', items: alternatives };
  const first = orderBy[0];
  const value = values[0];
  if (orderBy.length < 2 || !first || first.expr || value === null || value === undefined) return after;
  if (first.descending && !notNull.has(first.column)) return after;
  const bound: Expr = {
    kind: 'compare',
    op: first.descending ? '<=' : '>=',
    left: { kind: 'column', name: first.column },
    right: { kind: 'value', value, type: typeOf(first.column, types) },
  };
  return { kind: 'and', items: [bound, after] };
}

/**
 * `(a, b) > (?, ?)` (or `<` descending) when every key is a plain never-null column and all
 * run one way: the same rows as the expanded form, but the engine seeks the whole key in the
 * index. The expanded form's leading bound only seeks the first key, so a page starting inside a
 * long tie (rows of one bulk write share created_at) scanned the tie up to the cursor.
 */
function rowValueCondition(
  orderBy: readonly OrderTerm[],
  values: readonly unknown[],
  types: ReadonlyMap<string, ValueType>,
  notNull: ReadonlySet<string>,
): Expr | undefined {
  if (orderBy.length < 2) return undefined;
  const descending = orderBy[0]!.descending;
  for (let i = 0; i < orderBy.length; i++) {
    const term = orderBy[i]!;
    if (
      term.expr ||
      term.descending !== descending ||
      !notNull.has(term.column) ||
      values[i] === null ||
      values[i] === undefined
    )
      return undefined;
  }
  return {
    kind: 'compare',
    op: descending ? '<' : '>',
    left: { kind: 'row', items: orderBy.map((term) => ({ kind: 'column', name: term.column })) },
    right: {
      kind: 'row',
      items: orderBy.map((term, i) => ({
        kind: 'value',
        value: values[i],
        type: term.type ?? typeOf(term.column, types),
      })),
    },
  };
}

function typeOf(column: string, types: ReadonlyMap<string, ValueType>): ValueType {
  return types.get(column) ?? 'text';
}

function equalTo(term: OrderTerm, value: unknown, types: ReadonlyMap<string, ValueType>): Expr {
  const column = term.column;
  const target: Expr = term.expr ?? { kind: 'column', name: column };
  if (value === null || value === undefined) return { kind: 'is-null', expr: target, negated: false };
  return {
    kind: 'compare',
    op: '=',
    left: target,
    right: { kind: 'value', value, type: term.type ?? typeOf(column, types) },
  };
}

/** Rows whose key lies past `value` in the term's direction; undefined when none can. */
function beyondValue(
  term: OrderTerm,
  value: unknown,
  types: ReadonlyMap<string, ValueType>,
  notNull: ReadonlySet<string>,
): Expr | undefined {
  const target: Expr = term.expr ?? { kind: 'column', name: term.column };
  const type = term.type ?? typeOf(term.column, types);
  const isNull = value === null || value === undefined;
  if (!term.descending) {
    // Ascending, nulls first: after null come all non-null values; after v, the larger ones.
    if (isNull) return { kind: 'is-null', expr: target, negated: true };
    return { kind: 'compare', op: '>', left: target, right: { kind: 'value', value, type } };
  }
  // Descending, nulls last: nothing comes after null; after v, the smaller ones and the nulls.
  if (isNull) return undefined;
  if (!term.expr && notNull.has(term.column))
    return { kind: 'compare', op: '<', left: target, right: { kind: 'value', value, type } };
  return {
    kind: 'or',
    items: [
      { kind: 'compare', op: '<', left: target, right: { kind: 'value', value, type } },
      { kind: 'is-null', expr: target, negated: false },
    ],
  };
}

function sign(key: string, body: string): string {
  return createHmac('sha256', key).update(`rowbase-cursor\0${body}`).digest('base64url');
}
