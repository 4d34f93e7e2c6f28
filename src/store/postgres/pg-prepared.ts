/**
 * Named prepared statements for the insert texts a store keeps (insert-texts.ts). A bulk's
 * multi-row INSERT is long (about 70 KB of text for 1,000 rows of 8 columns) and PostgreSQL
 * parsed and analysed it again on every request: prepared once per connection, a request sends
 * only its values (measured on one connection, 1,000-row upsert: 37 → 26 ms of backend CPU;
 * 1,000 event-log entries: 11 → 8 ms).
 *
 * Bounded per connection: a connection prepares at most MAX_PER_CONNECTION texts and runs any
 * other unnamed, as before, so its backend's memory stays bounded however many shapes come and
 * go. A name is the text's number (unique in the process), never reused for another text.
 * Prepared statements outlive a rolled-back transaction and are dropped with their connection.
 * A text's shape holds every column's type, so a table whose column changes type gets a new text
 * and a new name. Only a request still holding the old definition while another process
 * changes it can run the old name against the new table: PostgreSQL then refuses it ("cached
 * plan must not change result type"), answered as busy (503, try again; pg-errors.ts).
 */
import type pg from 'pg';

/** Texts one connection prepares at most. */
const MAX_PER_CONNECTION = 32;

/** The names each connection has prepared (or is preparing); a connection's set goes with it. */
const preparedNames = new WeakMap<pg.ClientBase, Set<string>>();

/**
 * The statement name under which `client` runs the kept text `textNumber`, or undefined when
 * the connection already holds its share of prepared statements (the text then runs unnamed).
 */
export function preparedName(client: pg.ClientBase, textNumber: number): string | undefined {
  const name = `rb_insert_${textNumber}`;
  let names = preparedNames.get(client);
  if (names === undefined) {
    names = new Set();
    preparedNames.set(client, names);
  }
  if (names.has(name)) return name;
  if (names.size >= MAX_PER_CONNECTION) return undefined;
  names.add(name);
  return name;
}
