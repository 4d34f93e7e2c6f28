/**
 * Row objects built from better-sqlite3's raw arrays. In its object mode better-sqlite3 makes
 * every row through the V8 API, one named property at a time; in raw mode it hands over an
 * array, and a function compiled once per statement turns that into the same object: one
 * object literal of one shape, with booleans and json decoded in it. That is about a quarter
 * less of the time SQLite's share of a list takes (20 rows: 40 µs → 30 µs in
 * a micro-benchmark), on every select: lists, GET by id and expanded rows.
 */
import type { ColumnRef, ValueType } from '../../query/sql-tree.js';
import type { Row } from '../types.js';
import { decodeSqliteValue } from './sqlite-compiler.js';

/** Turns one raw result row (values in output order) into a row object. */
export type RowBuilder = (raw: readonly unknown[]) => Row;

/**
 * The builder of a statement whose result columns are named `outputs` (better-sqlite3's
 * `columns()`, in order). `types` gives the decoded type of each output name (the statement's
 * result columns); names it does not know keep SQLite's value. A name given twice is one key
 * and the later value wins, as in better-sqlite3's object mode.
 */
export function buildRowBuilder(outputs: readonly string[], types: readonly ColumnRef[]): RowBuilder {
  const typeOf = new Map<string, ValueType>();
  for (const column of types) if (!typeOf.has(column.name)) typeOf.set(column.name, column.type);
  // `__proto__` as a literal key would set the prototype instead of a property.
  if (outputs.includes('__proto__')) return loopBuilder(outputs, typeOf);
  // The generated source holds only JSON string literals of the names and array indexes: no
  // value from a request can reach it. It is what fast-json-stringify does for serialisers.
  const fields = outputs.map(
    (name, index) => `${JSON.stringify(name)}: ${decodeExpression(`r[${index}]`, typeOf.get(name))}`,
  );
  return new Function('r', `return { ${fields.join(', ')} };`) as RowBuilder;
}

/** The source that decodes `value` (a raw-array element) as decodeSqliteValue does for `type`. */
function decodeExpression(value: string, type: ValueType | undefined): string {
  switch (type) {
    case 'boolean':
      return `(${value} === null ? null : ${value} === 1 || ${value} === 1n || ${value} === true)`;
    case 'json':
      return `(${value} === null ? null : JSON.parse(${value}))`;
    default:
      return value;
  }
}

function loopBuilder(outputs: readonly string[], typeOf: ReadonlyMap<string, ValueType>): RowBuilder {
  return (raw) => {
    const row: Row = {};
    outputs.forEach((name, index) => {
      const type = typeOf.get(name);
      Object.defineProperty(row, name, {
        value: type ? decodeSqliteValue(raw[index], type) : raw[index],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return row;
  };
}
