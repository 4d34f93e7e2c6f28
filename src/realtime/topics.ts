/**
 * Realtime topics (contract §11): `{table}` (every row), `{table}/{row_id}` (one row) and
 * `{table}?filter=<url-encoded expression>` (the rows matching a filter, same language and
 * shorthand filters as a list). Parsed and checked once per subscription call; the rule of
 * each topic is compiled per subscriber later, at delivery time.
 */
import { AppError } from '../errors/app-error.js';
import { parseListParams } from '../query/list-params.js';
import type { Expr } from '../query/sql-tree.js';
import type { Caller } from '../tables/caller.js';
import type { CompiledTable } from '../tables/compiled-table.js';
import { ruleCondition } from '../tables/row-access.js';
import { tableNotFound } from '../tables/not-found.js';

/** A checked topic. `query` holds a filtered topic's parameters, compiled again when the table changes. */
export interface Topic {
  /** The topic as the client wrote it: the `event:` name of its events. */
  readonly name: string;
  readonly table: string;
  readonly rowId?: string;
  readonly query?: Readonly<Record<string, string>>;
  /** The rule that decides who may see an event: list for table and filtered topics, view for a row topic. */
  readonly operation: 'list' | 'view';
}

const TABLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const TOPIC_SUGGESTION =
  'Write a topic as "table", "table/ROW_ID" or "table?filter=" followed by ' +
  'a URL-encoded filter, for example tasks?filter=done%20%3D%20false.';

/**
 * Parses one topic and checks it against the project's tables for `caller`. Throws
 * VALIDATION_FILTER (malformed topic or filter), TABLE_NOT_FOUND, FORBIDDEN (the topic's rule
 * is locked for the caller).
 */
export function parseTopic(
  name: string,
  tables: ReadonlyMap<string, CompiledTable>,
  caller: Caller,
  now: string,
): Topic {
  // The topic is written back as the `event:` line of its events: a line break would end that
  // line and let the rest pass for fields of the stream (ids, data) the server never sent.
  if (CONTROL_CHARACTER.test(name))
    throw malformed(name, 'holds a control character (URL-encode a row id or filter that needs one)');
  const query = name.indexOf('?');
  const path = query < 0 ? name : name.slice(0, query);
  const slash = path.indexOf('/');
  const tableName = slash < 0 ? path : path.slice(0, slash);
  const rowId = slash < 0 ? undefined : path.slice(slash + 1);
  if (
    !TABLE_NAME.test(tableName) ||
    (rowId !== undefined && (rowId === '' || rowId.includes('/'))) ||
    (rowId !== undefined && query >= 0)
  ) {
    throw malformed(name, 'is not "table", "table/ROW_ID" or "table?filter=..."');
  }
  const table = tables.get(tableName);
  if (!table) throw tableNotFound(tableName, { tables: tables.keys(), topic: name });
  const operation = rowId === undefined ? 'list' : 'view';
  // A locked rule throws FORBIDDEN here, as the data API would.
  ruleCondition(table, operation, caller, now);
  if (rowId !== undefined) return Object.freeze({ name, table: tableName, rowId: decodeRowId(name, rowId), operation });
  if (query < 0) return Object.freeze({ name, table: tableName, operation });
  const params = parseQuery(name, name.slice(query + 1));
  topicFilter(params, table, now);
  return Object.freeze({ name, table: tableName, query: params, operation });
}

/** The WHERE condition of a filtered topic's parameters; undefined for none. Throws VALIDATION_FILTER. */
export function topicFilter(
  query: Readonly<Record<string, string>> | undefined,
  table: CompiledTable,
  now: string,
): Expr | undefined {
  if (query === undefined) return undefined;
  return parseListParams(query, table.filterable, now).where;
}

function parseQuery(topic: string, text: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key === 'limit' || key === 'offset' || key === 'sort' || key === 'select' || key === 'count') {
      throw malformed(topic, `takes no "${key}": a topic is every matching row as it changes`);
    }
    if (key in params) throw malformed(topic, `names "${key}" twice`);
    params[key] = value;
  }
  if (Object.keys(params).length === 0) throw malformed(topic, 'has a "?" but no filter');
  return params;
}

function decodeRowId(topic: string, rowId: string): string {
  try {
    return decodeURIComponent(rowId);
  } catch {
    throw malformed(topic, 'has a row id that is not valid URL encoding');
  }
}

function malformed(topic: string, detail: string): AppError {
  return new AppError('VALIDATION_FILTER', {
    message: `subscriptions: the topic ${JSON.stringify(topic)} ${detail}.`,
    suggestion: TOPIC_SUGGESTION,
  });
}
