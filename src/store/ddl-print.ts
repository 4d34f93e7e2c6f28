/**
 * Prints the nodes of a table's DDL plan (`ddl-plan.ts`) in one engine's dialect. The plan
 * decides; a `DdlDialect` says only how its engine spells a type, a constant, a table name,
 * and whether foreign keys sit inline in the column (SQLite) or are named constraints
 * (PostgreSQL, so that they can be dropped by name).
 */
import type { ValueType } from '../query/sql-tree.js';
import type { IndexSpec } from './index-names.js';
import type { ColumnNode, ForeignKeyNode } from './ddl-plan.js';
import { quoteIdent } from './sql-compiler.js';

/** How one engine spells DDL. */
export interface DdlDialect {
  /** The column type of a value type (with its collation where the engine needs one). */
  columnType(type: ValueType): string;
  /** A stored default as a SQL constant. */
  literal(value: boolean | number): string;
  /** A table name as DDL statements name it (schema-qualified where the engine has schemas). */
  qualify(table: string): string;
  /** True: a column prints its foreign key inline; false: foreign keys are separate named constraints. */
  readonly inlineForeignKeys: boolean;
}

const ON_DELETE = { cascade: 'CASCADE', restrict: 'RESTRICT', set_null: 'SET NULL' } as const;

/**
 * `REFERENCES <table>("id") ON DELETE <action>`, the part both engines spell alike. `spacing`
 * keeps each engine's text as it always was (SQLite stores it verbatim in sqlite_schema).
 */
function referenceSql(dialect: DdlDialect, fk: ForeignKeyNode, spacing: string): string {
  return `REFERENCES ${dialect.qualify(fk.table)}${spacing}(${quoteIdent('id')}) ON DELETE ${ON_DELETE[fk.onDelete]}`;
}

/** One column definition of CREATE TABLE or ADD COLUMN. */
export function columnSql(dialect: DdlDialect, column: ColumnNode): string {
  const parts = [quoteIdent(column.name), dialect.columnType(column.type)];
  if (column.primaryKey) parts.push('PRIMARY KEY');
  if (column.notNull) parts.push('NOT NULL');
  if (column.storedDefault !== undefined) parts.push(`DEFAULT ${dialect.literal(column.storedDefault)}`);
  if (column.references && dialect.inlineForeignKeys) parts.push(referenceSql(dialect, column.references, ''));
  return parts.join(' ');
}

/** CREATE TABLE with every column of the plan (`name` differs from the plan's during a rebuild). */
export function createTableSql(dialect: DdlDialect, name: string, columns: readonly ColumnNode[], suffix = ''): string {
  return (
    `CREATE TABLE ${dialect.qualify(name)} (\n  ` +
    `${columns.map((column) => columnSql(dialect, column)).join(',\n  ')}\n)${suffix}`
  );
}

/** CREATE [UNIQUE] INDEX of one planned index on `table`. */
export function createIndexSql(dialect: DdlDialect, table: string, index: IndexSpec): string {
  return (
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(index.name)} ` +
    `ON ${dialect.qualify(table)} (${index.columns.map(quoteIdent).join(', ')})`
  );
}

/** ADD CONSTRAINT of one named foreign key (engines without inline foreign keys). */
export function addForeignKeySql(dialect: DdlDialect, fk: ForeignKeyNode): string {
  return (
    `ADD CONSTRAINT ${quoteIdent(fk.name)} FOREIGN KEY ` +
    `(${quoteIdent(fk.column)}) ${referenceSql(dialect, fk, ' ')}`
  );
}
