/**
 * The engine-neutral plan of a user table's DDL: which columns exist, which is the primary
 * key, which are NOT NULL, which carry a stored default, which reference another table (and
 * what happens on delete), and which indexes exist. Every decision is made here, once; the
 * engines (`sqlite/sqlite-ddl.ts`, `postgres/pg-ddl.ts`) only print the nodes in their
 * dialect, as Kysely's dialects print one query tree. A default decided by a column's name
 * in one engine only cannot happen: a printer has nothing to decide.
 */
import type { ValueType } from '../query/sql-tree.js';
import {
  physicalColumns,
  type ColumnDefinition,
  type OnDelete,
  type PhysicalColumn,
  type TableDefinition,
} from '../schema/definition.js';
import { foreignKeyName, indexesOf, type IndexSpec } from './index-names.js';

/** A foreign key: the column, the table it points at (always its `id`), and the action on delete. */
export interface ForeignKeyNode {
  /** The constraint's name, for engines that name constraints (PostgreSQL). */
  readonly name: string;
  readonly column: string;
  readonly table: string;
  readonly onDelete: OnDelete;
}

/** One column as the database should hold it. */
export interface ColumnNode {
  readonly name: string;
  readonly type: ValueType;
  readonly primaryKey: boolean;
  readonly notNull: boolean;
  /** A constant the database fills in when an insert leaves the column out (auth bookkeeping only). */
  readonly storedDefault?: boolean | number;
  readonly references?: ForeignKeyNode;
}

/** A whole table: its columns in order, its foreign keys and its indexes. */
export interface TableDdlPlan {
  readonly name: string;
  readonly columns: readonly ColumnNode[];
  readonly foreignKeys: readonly ForeignKeyNode[];
  readonly indexes: readonly IndexSpec[];
}

/**
 * Plans one physical column of `table`. System and auth columns are NOT NULL; a declared
 * column is NOT NULL when required. Only a column's origin decides a stored default, never
 * its name: a declared `email_verified` is as plain as any other boolean.
 */
export function planColumn(table: string, column: PhysicalColumn): ColumnNode {
  const ref = column.origin === 'declared' ? column.definition?.references : undefined;
  return Object.freeze({
    name: column.name,
    type: column.type,
    primaryKey: column.origin === 'system' && column.name === 'id',
    notNull: column.origin !== 'declared' || column.definition?.required === true,
    ...(column.origin === 'auth' && column.storedDefault !== undefined && { storedDefault: column.storedDefault }),
    ...(ref && { references: foreignKeyOf(table, column.name, ref) }),
  });
}

/** Plans a declared column on its own (columns added to an existing table). */
export function planDeclaredColumn(table: string, definition: ColumnDefinition): ColumnNode {
  return planColumn(table, { name: definition.name, type: definition.type, origin: 'declared', definition });
}

/** Plans the columns only an auth table has (added or dropped when `auth_table` changes). */
export function planAuthColumns(table: TableDefinition): ColumnNode[] {
  return physicalColumns({ ...table, columns: [] })
    .filter((column) => column.origin === 'auth')
    .map((column) => planColumn(table.name, column));
}

/** The foreign key of a declared column, or undefined when it references nothing. */
export function planForeignKey(table: string, definition: ColumnDefinition): ForeignKeyNode | undefined {
  return definition.references && foreignKeyOf(table, definition.name, definition.references);
}

/** Plans a whole table: every physical column, system columns first, its foreign keys and indexes. */
export function planTableDdl(table: TableDefinition): TableDdlPlan {
  const columns = physicalColumns(table).map((column) => planColumn(table.name, column));
  return Object.freeze({
    name: table.name,
    columns: Object.freeze(columns),
    foreignKeys: Object.freeze(columns.flatMap((column) => (column.references ? [column.references] : []))),
    indexes: Object.freeze(indexesOf(table)),
  });
}

function foreignKeyOf(table: string, column: string, ref: NonNullable<ColumnDefinition['references']>): ForeignKeyNode {
  return Object.freeze({ name: foreignKeyName(table, column), column, table: ref.table, onDelete: ref.on_delete });
}
