/**
 * The checks a schema change must pass against the project's other tables, over plain
 * definitions: references that resolve, one auth table, rules that still compile, and no
 * table dropped while another references it. Each throws a catalogue error or answers why.
 */
import { AppError } from '../errors/app-error.js';
import { authColumnsOf, compileTable } from './compiled-table.js';
import type { TableDefinition } from '../schema/definition.js';

/**
 * Throws TABLE_IN_USE when dropping `before` (named `name`) would leave another of `tables`
 * referencing it, or (for the auth table) with a rule that uses its fields.
 */
export function checkDroppable(name: string, before: TableDefinition, tables: readonly TableDefinition[]): void {
  const referrer = tables.find((t) => t.name !== name && t.columns.some((c) => c.references?.table === name));
  if (referrer) {
    const column = referrer.columns.find((c) => c.references?.table === name)!.name;
    throw new AppError('TABLE_IN_USE', {
      message: `Table "${referrer.name}" references "${name}".`,
      // PATCH changes that one column; a PUT would reset whatever else the body left out.
      suggestion:
        `Remove the reference first: PATCH /p/{id}/v1/tables/${referrer.name} ` +
        `with {"columns": [{"name": "${column}", "references": null}]}.`,
    });
  }
  const broken = before.auth_table
    ? ruleBrokenBy(
        tables.filter((t) => t.name !== name),
        undefined,
      )
    : undefined;
  if (broken) {
    throw new AppError('TABLE_IN_USE', {
      message: `Table "${broken.table}" has a rule that uses the auth table "${name}": ${broken.reason}`,
      suggestion:
        `Change the rules of "${broken.table}" (PATCH /p/{id}/v1/tables/${broken.table} ` +
        'with only the rules to change: {"rules": {"<operation>": "<new rule>"}}) first.',
    });
  }
}

/**
 * The first of `tables` whose rules no longer compile against the auth table `authTable`
 * (its @request.auth fields), or undefined. Keeps a schema change from leaving a project
 * whose schema cannot be loaded.
 */
export function ruleBrokenBy(
  tables: readonly TableDefinition[],
  authTable: TableDefinition | undefined,
  changed?: TableDefinition,
): { table: string; reason: string } | undefined {
  const authColumns = authColumnsOf(authTable);
  const all = new Map(tables.map((t) => [t.name, t] as const));
  if (authTable) all.set(authTable.name, authTable);
  if (changed) all.set(changed.name, changed);
  for (const table of tables) {
    if (table.auth_table) continue;
    try {
      compileTable(table, authColumns, all);
    } catch (error) {
      if (error instanceof AppError) return { table: table.name, reason: error.message };
      throw error;
    }
  }
  return undefined;
}

/**
 * Throws AUTH_TABLE_EXISTS for a second auth table, VALIDATION_FAILED for a reference to a table that does not exist.
 */
export function checkAgainstOtherTables(table: TableDefinition, others: readonly TableDefinition[]): void {
  const existing = others.find((t) => t.auth_table);
  if (table.auth_table && existing) {
    throw new AppError('AUTH_TABLE_EXISTS', {
      message: `Table "${existing.name}" is already this project's auth table.`,
    });
  }
  const names = new Set([table.name, ...others.map((t) => t.name)]);
  for (const column of table.columns) {
    if (column.references && !names.has(column.references.table)) {
      throw new AppError('VALIDATION_FAILED', {
        message: `${column.name}: references table "${column.references.table}", which does not exist.`,
        suggestion: `Create "${column.references.table}" first. Tables: ${[...names].sort().join(', ')}.`,
      });
    }
  }
}
