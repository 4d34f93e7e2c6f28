/**
 * The version of a table definition, sent as its ETag (contract §2), and the checks of the
 * If-Match / If-None-Match preconditions against it. Pure: the schema service runs the checks
 * inside its schema transaction, so the check and the write are one step.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { TableDefinition } from '../schema/definition.js';

/** The preconditions a schema write may carry (parsed from If-Match / If-None-Match). */
export interface TablePreconditions {
  /** `*` (any existing version) or the ETags the caller holds. */
  readonly ifMatch?: '*' | readonly string[];
  /** Only `*` is meaningful for a table write: create, never replace. */
  readonly ifNoneMatch?: '*';
}

/**
 * A strong, quoted ETag of a definition: a hash of its JSON with keys sorted at every level,
 * so it depends on the definition alone (not on how an engine stores JSON, nor on the process).
 */
export function tableETag(table: TableDefinition): string {
  const digest = createHash('sha256').update(canonicalJson(table), 'utf8').digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/**
 * Throws when `before` (the table as stored now, null when absent) fails the preconditions:
 * TABLE_EXISTS for If-None-Match: * on an existing table, SCHEMA_CHANGED when If-Match names
 * another version or the table is gone.
 */
export function checkPreconditions(
  name: string,
  before: TableDefinition | null,
  preconditions: TablePreconditions | undefined,
): void {
  if (!preconditions) return;
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch !== undefined) {
    const current = before ? tableETag(before) : undefined;
    const matches = current !== undefined && (ifMatch === '*' || ifMatch.includes(current));
    if (!matches) {
      throw new AppError('SCHEMA_CHANGED', {
        message: current
          ? `Table "${name}" changed since you read it: its ETag is now ${current}.`
          : `Table "${name}" does not exist any more: it was deleted since you read it.`,
      });
    }
  }
  if (ifNoneMatch === '*' && before) {
    throw new AppError('TABLE_EXISTS', {
      message: `A table named "${name}" exists already; If-None-Match: * only creates.`,
    });
  }
}

/** JSON with object keys sorted at every level; `undefined` members are left out, as JSON does. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${members.join(',')}}`;
}
