/**
 * DDL for user tables on PostgreSQL. PostgreSQL alters tables in place and its DDL is
 * transactional, so every change is a short list of ALTER TABLE steps run inside the
 * schema transaction; nothing is rebuilt. Unique options are unique indexes and foreign
 * keys are named constraints (names from `index-names.ts`), so both change by name.
 * What the table holds is decided by the engine-neutral plan (`../ddl-plan.ts`); this file
 * prints it as ALTER steps. Defaults are applied by the row service, not by DDL, so both
 * engines fill them alike.
 */
import type pg from 'pg';
import type { ValueType } from '../../query/sql-tree.js';
import type { ColumnDefinition, TableDefinition } from '../../schema/definition.js';
import { diffTable, type ColumnStep } from '../ddl-change.js';
import { planAuthColumns, planDeclaredColumn, planForeignKey, planTableDdl, type ForeignKeyNode } from '../ddl-plan.js';
import { addForeignKeySql, columnSql, createIndexSql, createTableSql, type DdlDialect } from '../ddl-print.js';
import { foreignKeyName, searchIndexName } from '../index-names.js';
import { quoteIdent } from '../sql-compiler.js';
import type { TableChange } from '../types.js';
import { encodePgValue, PG_TYPES } from './pg-compiler.js';
import { addSearchColumnSql, createSearchIndexSql, SEARCH_COLUMN, searchChanged } from './pg-search.js';

/** What the DDL needs from a connection: one statement at a time. */
export interface QueryRunner {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

// Types for casting bound defaults (no collation: that belongs to the column).
const CAST_TYPES: Readonly<Record<ValueType, string>> = {
  text: 'text',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
};

/** PostgreSQL's spelling of the plan in one schema: foreign keys as named constraints. */
function pgDialect(schema: string): DdlDialect {
  return {
    columnType: (type) => PG_TYPES[type],
    literal: (value) => (typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value)),
    qualify: (table) => `${quoteIdent(schema)}.${quoteIdent(table)}`,
    inlineForeignKeys: false,
  };
}

/** Builds the ALTER steps of one table change and runs them in order on `runner`. */
class TableAlteration {
  private readonly table: string;
  /** How this schema's DDL is spelled. */
  readonly dialect: DdlDialect;

  constructor(
    private readonly runner: QueryRunner,
    private readonly schema: string,
    private readonly name: string,
  ) {
    this.dialect = pgDialect(schema);
    this.table = this.dialect.qualify(name);
  }

  async exec(sql: string, values?: unknown[]): Promise<void> {
    await this.runner.query(sql, values);
  }

  async alter(clause: string): Promise<void> {
    await this.exec(`ALTER TABLE ${this.table} ${clause}`);
  }

  async create(table: TableDefinition): Promise<void> {
    await this.exec(createTableSql(this.dialect, this.name, planTableDdl(table).columns));
  }

  async drop(): Promise<void> {
    await this.exec(`DROP TABLE ${this.table}`);
  }

  /** Sets the column to its default in every row (a no-op when it has none). */
  async fillDefault(column: ColumnDefinition): Promise<void> {
    await this.setDefault(column, '');
  }

  /** Sets the column to its default in the rows where it is null (a no-op when it has none). */
  async fillDefaultWhereNull(column: ColumnDefinition): Promise<void> {
    await this.setDefault(column, ` WHERE ${quoteIdent(column.name)} IS NULL`);
  }

  private async setDefault(column: ColumnDefinition, where: string): Promise<void> {
    if (column.default === undefined || column.default === null) return;
    await this.exec(`UPDATE ${this.table} SET ${quoteIdent(column.name)} = $1::${CAST_TYPES[column.type]}${where}`, [
      encodePgValue(column.default, column.type),
    ]);
  }

  async addForeignKey(fk: ForeignKeyNode): Promise<void> {
    await this.alter(addForeignKeySql(this.dialect, fk));
  }

  async dropForeignKey(column: string): Promise<void> {
    await this.alter(`DROP CONSTRAINT IF EXISTS ${quoteIdent(foreignKeyName(this.name, column))}`);
  }

  /** Drops the indexes the table should no longer have, before columns change. */
  async dropUnwantedIndexes(wanted: ReadonlyMap<string, string>): Promise<void> {
    for (const index of await this.existingIndexes()) {
      if (!wanted.has(index)) await this.exec(`DROP INDEX ${quoteIdent(this.schema)}.${quoteIdent(index)}`);
    }
  }

  /** Creates the wanted indexes that do not exist yet (a duplicate value fails a unique one). */
  async createMissingIndexes(wanted: ReadonlyMap<string, string>): Promise<void> {
    const existing = new Set(await this.existingIndexes());
    for (const [index, create] of wanted) if (!existing.has(index)) await this.exec(create);
  }

  private async existingIndexes(): Promise<string[]> {
    const result = await this.runner.query(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = to_regclass($1) AND NOT i.indisprimary`,
      [this.table],
    );
    return result.rows.map((row: { name: string }) => row.name);
  }
}

/** The indexes a table should have, by name → CREATE statement (the same set as on SQLite). */
function wantedIndexes(dialect: DdlDialect, schema: string, table: TableDefinition): Map<string, string> {
  const wanted = new Map(
    planTableDdl(table).indexes.map((index) => [index.name, createIndexSql(dialect, table.name, index)]),
  );
  if (table.search) wanted.set(searchIndexName(table.name), createSearchIndexSql(schema, table.name));
  return wanted;
}

/**
 * Applies a table change inside the caller's transaction. Columns added to existing rows get
 * their declared default; reset columns are cleared (then defaulted); a column made required
 * gets its default where it was null. Throws the driver's error when existing rows forbid the
 * change (translated by the caller).
 */
export async function applyPgTableChange(runner: QueryRunner, schema: string, change: TableChange): Promise<void> {
  const { before, after } = change;
  const target = after ?? before;
  if (!target) return;
  const ddl = new TableAlteration(runner, schema, target.name);
  if (!after) return ddl.drop();
  const wanted = wantedIndexes(ddl.dialect, schema, after);
  if (!before) {
    await ddl.create(after);
    for (const fk of planTableDdl(after).foreignKeys) await ddl.addForeignKey(fk);
    if (after.search) await ddl.alter(addSearchColumnSql(after));
    return ddl.createMissingIndexes(wanted);
  }

  const diff = diffTable(before, after, change.resetColumns);
  // The search vector (and its index) is remade when its columns change: before they are dropped, after they exist.
  const search = searchChanged(before, after);
  if (search && before.search) await ddl.alter(`DROP COLUMN IF EXISTS ${quoteIdent(SEARCH_COLUMN)}`);
  for (const name of diff.foreignKeysDropped) await ddl.dropForeignKey(name);
  await ddl.dropUnwantedIndexes(wanted);
  for (const name of diff.dropped) await ddl.alter(`DROP COLUMN ${quoteIdent(name)}`);
  if (diff.authDropped) {
    for (const column of planAuthColumns(before)) await ddl.alter(`DROP COLUMN ${quoteIdent(column.name)}`);
  }
  if (diff.authAdded) {
    // email and password have no default: on a table with rows this fails with not-null, as on SQLite.
    for (const column of planAuthColumns(after)) await ddl.alter(`ADD COLUMN ${columnSql(ddl.dialect, column)}`);
  }
  for (const step of diff.steps) await applyColumnStep(ddl, after.name, step);
  for (const column of diff.foreignKeysAdded) await ddl.addForeignKey(planForeignKey(after.name, column)!);
  if (search && after.search) await ddl.alter(addSearchColumnSql(after));
  await ddl.createMissingIndexes(wanted);
}

/** The ALTER steps of one declared column, in the order that keeps existing rows valid. */
async function applyColumnStep(ddl: TableAlteration, table: string, step: ColumnStep): Promise<void> {
  const { column } = step;
  const quoted = quoteIdent(column.name);
  if (step.kind === 'added') {
    // Added nullable, filled, then made NOT NULL: existing rows get the default first.
    await ddl.alter(`ADD COLUMN ${columnSql(ddl.dialect, { ...planDeclaredColumn(table, column), notNull: false })}`);
    await ddl.fillDefault(column);
    if (column.required) await ddl.alter(`ALTER COLUMN ${quoted} SET NOT NULL`);
    return;
  }
  const { previous } = step;
  if (step.kind === 'reset') {
    if (previous.required) await ddl.alter(`ALTER COLUMN ${quoted} DROP NOT NULL`);
    await ddl.alter(`ALTER COLUMN ${quoted} TYPE ${PG_TYPES[column.type]} USING NULL`);
    await ddl.fillDefault(column);
    if (column.required) await ddl.alter(`ALTER COLUMN ${quoted} SET NOT NULL`);
    return;
  }
  if (previous.type !== column.type) {
    // The one safe type change (integer → number) keeps every value.
    await ddl.alter(`ALTER COLUMN ${quoted} TYPE ${PG_TYPES[column.type]} USING ${quoted}::${CAST_TYPES[column.type]}`);
  }
  if (column.required && !previous.required) {
    await ddl.fillDefaultWhereNull(column);
    await ddl.alter(`ALTER COLUMN ${quoted} SET NOT NULL`);
  } else if (!column.required && previous.required) {
    await ddl.alter(`ALTER COLUMN ${quoted} DROP NOT NULL`);
  }
}
