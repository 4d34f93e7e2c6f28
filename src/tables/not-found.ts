/**
 * The not-found errors of tables and rows. TABLE_NOT_FOUND is built only here, for the data
 * API, the schema API and realtime topics, so an unknown table reads alike wherever a client
 * names one.
 */
import { AppError } from '../errors/app-error.js';

/** What the caller knows about the miss: the project's tables (listed in the suggestion), the topic that named it. */
export interface TableNotFoundOptions {
  /** The project's table names; given, the suggestion lists them (or says how to create one). */
  readonly tables?: Iterable<string>;
  /** The realtime topic that named the table, quoted in the message. */
  readonly topic?: string;
}

/** TABLE_NOT_FOUND for `name`; without `tables`, the catalogue's suggestion. */
export function tableNotFound(name: string, options: TableNotFoundOptions = {}): AppError {
  const topic = options.topic === undefined ? '' : ` (topic ${JSON.stringify(options.topic)})`;
  const message = `This project has no table "${name}"${topic}.`;
  if (options.tables === undefined) return new AppError('TABLE_NOT_FOUND', { message });
  const names = [...options.tables].sort();
  return new AppError('TABLE_NOT_FOUND', {
    message,
    suggestion: names.length > 0 ? `Tables: ${names.join(', ')}.` : 'Create one with PUT /p/{id}/v1/tables/{table}.',
  });
}

/** ROW_NOT_FOUND for row `id` of `table`: absent, or hidden from this caller by a rule (the two answer alike). */
export function rowNotFound(table: string, id: string): AppError {
  return new AppError('ROW_NOT_FOUND', { message: `No row of "${table}" with id "${id}" is visible to this caller.` });
}
