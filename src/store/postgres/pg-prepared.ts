/**
 * Named prepared statements for the insert texts a store keeps (insert-texts.ts). A bulk's
 * multi-row INSERT is long (about 70 KB of text for 1,000 rows of 8 columns) and PostgreSQL
 * parsed and analysed it again on every request: prepared once per connection, a request sends
 * only its values (measured on one connection, 1,000-row upsert: 37 → 26 ms of backend CPU;
 * 1,000 event-log entries: 11 → 8 ms).
 *
 * Bounded per connection: a prepared statement holds its parsed text and plans in the backend,
 * about 560 bytes per placeholder (4.5 MB for that upsert's 8,000, measured with
 * pg_backend_memory_contexts). A connection prepares at most MAX_PER_CONNECTION texts and
 * MAX_PARAMETERS_PER_CONNECTION placeholders in all (about 14 MB of backend memory: a bulk
 * create and a bulk upsert of 1,000 rows of 8 columns and their log entries fit), first come,
 * first kept, and runs any other text unnamed, as before, so its backend's memory stays bounded
 * however many shapes come and go. A name is the text's number (unique in the process), never
 * reused for another text.
 * Prepared statements outlive a rolled-back transaction and are dropped with their connection.
 * A text's shape holds every column's type, so a table whose column changes type gets a new text
 * and a new name. Only a request still holding the old definition while another process
 * changes it can run the old name against the new table: PostgreSQL then refuses it ("cached
 * plan must not change result type"), answered as busy (503, try again; pg-errors.ts).
 */
import type pg from 'pg';

/** Texts one connection prepares at most. */
const MAX_PER_CONNECTION = 32;
/** Placeholders of all the texts one connection prepares, at most. */
const MAX_PARAMETERS_PER_CONNECTION = 24_576;

/** What a connection has prepared (or is preparing). */
interface Prepared {
  readonly names: Set<string>;
  parameters: number;
}

/** By connection; a connection's entry goes with it. */
const preparedByConnection = new WeakMap<pg.ClientBase, Prepared>();

/**
 * The statement name under which `client` runs the kept text `textNumber` (with `parameters`
 * placeholders), or undefined when the connection holds its share of prepared statements
 * already (the text then runs unnamed).
 */
export function preparedName(client: pg.ClientBase, textNumber: number, parameters: number): string | undefined {
  const name = `rb_insert_${textNumber}`;
  let prepared = preparedByConnection.get(client);
  if (prepared === undefined) {
    prepared = { names: new Set(), parameters: 0 };
    preparedByConnection.set(client, prepared);
  }
  if (prepared.names.has(name)) return name;
  if (prepared.names.size >= MAX_PER_CONNECTION || prepared.parameters + parameters > MAX_PARAMETERS_PER_CONNECTION)
    return undefined;
  prepared.names.add(name);
  prepared.parameters += parameters;
  return name;
}
