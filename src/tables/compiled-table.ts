/**
 * A table definition plus everything derived from it once, at schema-change time: result
 * columns, filterable columns, parsed rules, and (compiled on first use) row validators and
 * response serialisers.
 */
import type { ColumnRef, ValueType } from '../query/sql-tree.js';
import { parseRule, type ParsedRule } from '../query/rules.js';
import {
  physicalColumns,
  publicColumns,
  RULE_OPERATIONS,
  type RuleOperation,
  type TableDefinition,
} from '../schema/definition.js';
import { buildRowJson, type RowJson } from './row-json.js';
import { buildRowValidators, type RowValidators } from './row-validator.js';
import { pathResolver } from './relation-paths.js';

export interface CompiledTable {
  readonly name: string;
  readonly definition: TableDefinition;
  /** Columns returned to clients (never password or password_version). */
  readonly readable: readonly ColumnRef[];
  /** Every physical column, for writes. */
  readonly physical: ReadonlyMap<string, ColumnRef>;
  /** Columns that filters, sort and select may name. */
  readonly filterable: ReadonlyMap<string, ValueType>;
  readonly rules: Readonly<Record<RuleOperation, ParsedRule>>;
  /** Types of the `@request.auth.*` fields the rules may use. */
  readonly authColumns: ReadonlyMap<string, ValueType>;
  /** Row validators, compiled on first use and then kept with the table. */
  validators(): RowValidators;
  /** Response serialisers of plain rows of `readable` (row-json.ts), built with the table: one per schema version. */
  readonly json: RowJson;
  /** Every table definition of the project, for relation paths (absent: paths are refused). */
  readonly schemaDefinitions?: ReadonlyMap<string, TableDefinition>;
}

/**
 * Compiles a table for serving. `authColumns` types `@request.auth.*` in rules;
 * `schemaDefinitions` (every table of the project) lets rules use relation paths.
 * Throws VALIDATION_FAILED when a rule names an unknown column.
 */
export function compileTable(
  definition: TableDefinition,
  authColumns: ReadonlyMap<string, ValueType>,
  schemaDefinitions?: ReadonlyMap<string, TableDefinition>,
): CompiledTable {
  const readable = publicColumns(definition).map((c) => Object.freeze({ name: c.name, type: c.type }));
  const filterable = new Map(readable.map((c) => [c.name, c.type] as const));
  const paths = schemaDefinitions && pathResolver(schemaDefinitions, definition.name);
  const rules = Object.fromEntries(
    RULE_OPERATIONS.map((operation) => [
      operation,
      parseRule(definition.rules[operation], operation, filterable, authColumns, paths),
    ]),
  ) as Record<RuleOperation, ParsedRule>;
  let validators: RowValidators | undefined;
  return Object.freeze({
    name: definition.name,
    definition,
    readable: Object.freeze(readable),
    physical: new Map(
      physicalColumns(definition).map((c) => [c.name, Object.freeze({ name: c.name, type: c.type })] as const),
    ),
    filterable,
    rules: Object.freeze(rules),
    authColumns,
    validators: () => (validators ??= buildRowValidators(definition)),
    json: buildRowJson(readable),
    ...(schemaDefinitions && { schemaDefinitions }),
  });
}

/** The `@request.auth.*` fields rules may use: the auth table's readable columns, or just `id`. */
export function authColumnsOf(authTable: TableDefinition | undefined): ReadonlyMap<string, ValueType> {
  if (!authTable) return new Map([['id', 'text']]);
  return new Map(publicColumns(authTable).map((c) => [c.name, c.type] as const));
}
