/**
 * `expand=owner,owner.team,comments(post)` (contract §13) → a tree of expansions. A forward
 * segment follows a `references` column of the current table; a reverse segment
 * `table(column)` lists the rows of `table` whose `column` references the current row. Paths
 * go at most 3 levels deep; a shared prefix is expanded once (one query per node and page).
 * Pure: checks names against the reference map it is given.
 */
import { AppError } from '../errors/app-error.js';
import { shortenSource } from './filter-parser.js';

/** Deepest expand path (`owner.team.lead`). */
export const MAX_EXPAND_DEPTH = 3;

/** Per table, its readable columns that reference another table: column → referenced table. */
export type ReferenceMap = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** One expansion: a forward reference or a reverse listing, with the expansions below it. */
export interface ExpandNode {
  /** The key in the row's `expand` object: `owner` or `comments(post)`. */
  readonly key: string;
  readonly kind: 'forward' | 'reverse';
  /** The table whose rows this node reads. */
  readonly table: string;
  /** forward: the referencing column of the parent row; reverse: the column of `table` that references the parent. */
  readonly column: string;
  readonly children: readonly ExpandNode[];
}

const SEGMENT = /^(?:([a-z][a-z0-9_]{0,62})\(([a-z][a-z0-9_]{0,62})\)|([a-z][a-z0-9_]{0,62}))$/;

interface MutableNode {
  key: string;
  kind: 'forward' | 'reverse';
  table: string;
  column: string;
  children: MutableNode[];
}

/**
 * Parses `expand` for rows of `table`. Throws VALIDATION_FILTER (suggestion naming what can be
 * expanded there) for an unknown or non-reference name, a reverse `table(column)` whose column
 * does not reference the table, a malformed segment and a path deeper than 3.
 */
export function parseExpand(text: string, table: string, references: ReferenceMap): ExpandNode[] {
  const roots: MutableNode[] = [];
  for (const raw of text.split(',')) {
    const path = raw.trim();
    if (path === '') throw invalid(`expected a name between the commas in "${shortenSource(text)}"`, table, references);
    const segments = path.split('.');
    if (segments.length > MAX_EXPAND_DEPTH) {
      throw new AppError('VALIDATION_FILTER', {
        message: `expand: "${shortenSource(path)}" goes ${segments.length} levels deep; at most ${MAX_EXPAND_DEPTH}`,
        suggestion:
          `Shorten it to ${segments.slice(0, MAX_EXPAND_DEPTH).join('.')}, ` +
          'and read deeper rows with a second request.',
      });
    }
    let level = roots;
    let current = table;
    for (const segment of segments) {
      const node = resolveSegment(segment.trim(), current, references, path);
      let existing = level.find((n) => n.key === node.key);
      if (!existing) {
        existing = node;
        level.push(existing);
      }
      level = existing.children;
      current = existing.table;
    }
  }
  return roots;
}

function resolveSegment(segment: string, table: string, references: ReferenceMap, path: string): MutableNode {
  const match = SEGMENT.exec(segment);
  if (!match)
    throw invalid(
      `"${shortenSource(segment)}" in "${shortenSource(path)}" is not a column or table(column)`,
      table,
      references,
    );
  const [, reverseTable, reverseColumn, forward] = match;
  if (forward !== undefined) {
    const target = references.get(table)?.get(forward);
    if (target === undefined)
      throw invalid(`"${shortenSource(forward)}" is not a reference column of "${table}"`, table, references);
    return { key: forward, kind: 'forward', table: target, column: forward, children: [] };
  }
  if (references.get(reverseTable!)?.get(reverseColumn!) !== table) {
    throw invalid(
      `"${shortenSource(segment)}": no column "${reverseColumn}" of a table "${reverseTable}" references "${table}"`,
      table,
      references,
    );
  }
  return { key: segment, kind: 'reverse', table: reverseTable!, column: reverseColumn!, children: [] };
}

/** What can be expanded on rows of `table`: its reference columns and `t(c)` for every column referencing it. */
export function expandableNames(table: string, references: ReferenceMap): string[] {
  const forward = [...(references.get(table)?.keys() ?? [])];
  const reverse: string[] = [];
  for (const [other, columns] of references)
    for (const [column, target] of columns) if (target === table) reverse.push(`${other}(${column})`);
  return [...forward.sort(), ...reverse.sort()];
}

function invalid(detail: string, table: string, references: ReferenceMap): AppError {
  const names = expandableNames(table, references);
  return new AppError('VALIDATION_FILTER', {
    message: `expand: ${detail}`,
    suggestion:
      names.length > 0
        ? `Expand one of: ${names.join(', ')} (forward paths nest with dots, ` +
          `up to ${MAX_EXPAND_DEPTH} levels), for example: expand=${names[0]}.`
        : `Rows of "${table}" have nothing to expand: no column of it has ` +
          '"references", and no column of another table references it.',
  });
}
