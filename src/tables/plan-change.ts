/**
 * Plans a declarative table change: what is lost (dropped columns, destructive type
 * changes, an auth table turned back into a plain one), so the schema service can refuse
 * it unless the caller allowed destruction. Pure.
 */
import type { TableDefinition } from '../schema/definition.js';
import type { TableChange } from '../store/types.js';

export interface ChangePlan {
  readonly change: TableChange;
  /** Human-readable steps, printed by `rowbase schema apply`. */
  readonly steps: readonly string[];
  /** What would be lost; empty when the change is safe. */
  readonly destructive: readonly string[];
}

// Widening an integer column to number keeps every value; every other type change may not.
const SAFE_TYPE_CHANGES = new Set(['integer->number']);

/** Compares two definitions of one table (either may be null: create / drop). */
export function planTableChange(before: TableDefinition | null, after: TableDefinition | null): ChangePlan {
  const steps: string[] = [];
  const destructive: string[] = [];
  const resetColumns: string[] = [];
  if (!before && after) {
    steps.push(`create table ${after.name} (${after.columns.length} columns${after.auth_table ? ', auth table' : ''})`);
  } else if (before && !after) {
    steps.push(`drop table ${before.name}`);
    destructive.push(`table ${before.name} and all its rows would be deleted`);
  } else if (before && after) {
    const old = new Map(before.columns.map((c) => [c.name, c]));
    for (const column of after.columns) {
      const previous = old.get(column.name);
      if (!previous) {
        steps.push(`add column ${column.name} ${column.type}${column.required ? ' required' : ''}`);
        continue;
      }
      old.delete(column.name);
      if (previous.type !== column.type) {
        const key = `${previous.type}->${column.type}`;
        steps.push(`change column ${column.name} from ${previous.type} to ${column.type}`);
        if (!SAFE_TYPE_CHANGES.has(key)) {
          destructive.push(`column ${column.name}: changing ${previous.type} to ${column.type} clears its values`);
          resetColumns.push(column.name);
        }
      }
      if (JSON.stringify({ ...previous, type: null }) !== JSON.stringify({ ...column, type: null })) {
        steps.push(`change options of column ${column.name}`);
      }
    }
    for (const name of old.keys()) {
      steps.push(`drop column ${name}`);
      destructive.push(`column ${name} and its values would be deleted`);
    }
    if (before.auth_table && !after.auth_table) {
      steps.push('turn the auth table into a plain table');
      destructive.push('email, password and email_verified of every user would be deleted');
    }
    if (!before.auth_table && after.auth_table)
      steps.push('make it the auth table (adds email, password, email_verified)');
    if (JSON.stringify(before.indexes) !== JSON.stringify(after.indexes)) steps.push('update indexes');
    if (JSON.stringify(before.search ?? []) !== JSON.stringify(after.search ?? []))
      steps.push(after.search ? `search columns ${after.search.join(', ')}` : 'stop full-text search');
    if (JSON.stringify(before.rules) !== JSON.stringify(after.rules)) steps.push('update rules');
    if (before.verify_email !== after.verify_email) steps.push(`set verify_email to ${after.verify_email}`);
  }
  return Object.freeze({
    change: Object.freeze({ before, after, resetColumns: Object.freeze(resetColumns) }),
    steps: Object.freeze(steps),
    destructive: Object.freeze(destructive),
  });
}
