/**
 * The schema service: reads, declares and drops a project's tables, and keeps each
 * project's compiled schema in a cache that reloads when another process changed it.
 * A table change and its definition row commit in one transaction.
 */
import { AppError } from '../errors/app-error.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { sql } from '../query/sql-tree.js';
import { col, TABLE_DEFINITIONS as DEFINITIONS } from '../store/system-tables.js';
import type { Executor, ProjectDatabase, SchemaExecutor, StorageEngine } from '../store/types.js';
import { authColumnsOf, compileTable, type CompiledTable } from './compiled-table.js';
import type { TableDefinition } from '../schema/definition.js';
import { checkNewTableName, parseDefinition } from './parse-definition.js';
import { applyTablePatch } from './patch-definition.js';
import { planTableChange, type ChangePlan } from './plan-change.js';
import { translateChangeError } from './schema-change-errors.js';
import { checkAgainstOtherTables, checkDroppable, ruleBrokenBy } from './schema-checks.js';
import { tableNotFound } from './not-found.js';
import { checkPreconditions, type TablePreconditions } from './table-version.js';

/** A project's tables, compiled, with the database they live in. */
export interface ProjectSchema {
  readonly db: ProjectDatabase;
  readonly tables: ReadonlyMap<string, CompiledTable>;
  readonly authTable: CompiledTable | undefined;
}

interface CachedSchema {
  readonly schema: ProjectSchema;
  readonly version: number;
  /** The database answers its change version without a promise (SQLite): `peek` may use this entry. */
  readonly synchronous: boolean;
}

/** How a table write may proceed: destruction allowed, the caller's If-Match / If-None-Match. */
export interface TableWriteOptions {
  readonly allowDestructive: boolean;
  readonly preconditions?: TablePreconditions;
}

/** How a write of several tables may proceed: destruction allowed, and a dry run that rolls every change back. */
export interface TablesWriteOptions {
  readonly allowDestructive: boolean;
  readonly dryRun?: boolean;
}

export interface PutTableResult {
  readonly table: TableDefinition;
  readonly created: boolean;
  readonly plan: ChangePlan;
}

export class SchemaService {
  private readonly cache = new Map<string, CachedSchema>();

  constructor(
    private readonly storage: StorageEngine,
    private readonly clock: Clock,
  ) {}

  /** The project's compiled schema (cached; reloaded after changes made elsewhere). */
  async schema(projectId: string): Promise<ProjectSchema> {
    const cached = this.cache.get(projectId);
    if (cached && cached.version === (await cached.schema.db.externalChangeVersion())) return cached.schema;
    const db = await this.storage.project(projectId);
    const versionNow = db.externalChangeVersion();
    const version = await versionNow;
    const definitions = await readDefinitions(db);
    const schema = buildSchema(db, definitions);
    this.cache.set(projectId, { schema, version, synchronous: typeof versionNow === 'number' });
    return schema;
  }

  /**
   * The cached schema when it can be known current without waiting (the database answers
   * its change version synchronously, as SQLite does, and nothing changed since the cache was
   * filled); undefined otherwise, and then `schema` must be awaited.
   */
  peek(projectId: string): ProjectSchema | undefined {
    const cached = this.cache.get(projectId);
    if (!cached?.synchronous || cached.version !== cached.schema.db.externalChangeVersion()) return undefined;
    return cached.schema;
  }

  /** The compiled table; throws TABLE_NOT_FOUND. */
  async table(projectId: string, name: string): Promise<CompiledTable> {
    const table = (await this.schema(projectId)).tables.get(name);
    if (!table) throw tableNotFound(name);
    return table;
  }

  /**
   * Makes the table what `body` declares. Throws VALIDATION_FAILED, AUTH_TABLE_EXISTS,
   * SCHEMA_CHANGE_DESTRUCTIVE (unless allowed), SCHEMA_CHANGE_REJECTED, CONFLICT_UNIQUE, and
   * TABLE_EXISTS / SCHEMA_CHANGED when the preconditions fail (checked in the same schema
   * transaction as the write, so two writers cannot both pass them).
   */
  async putTable(projectId: string, name: string, body: unknown, options: TableWriteOptions): Promise<PutTableResult> {
    const after = parseDefinition(name, body);
    return this.writeTable(projectId, name, () => after, options);
  }

  /**
   * Changes only what `patch` names (rules per operation, columns by name, indexes, options),
   * under the same checks as putTable. Throws TABLE_NOT_FOUND, and whatever putTable throws.
   */
  async patchTable(
    projectId: string,
    name: string,
    patch: unknown,
    options: TableWriteOptions,
  ): Promise<PutTableResult> {
    return this.writeTable(
      projectId,
      name,
      (before) => {
        if (!before) throw tableNotFound(name);
        return parseDefinition(name, applyTablePatch(before, patch));
      },
      options,
    );
  }

  /** One table write in a schema transaction: `derive` turns the stored definition into the new one. */
  private async writeTable(
    projectId: string,
    name: string,
    derive: (before: TableDefinition | null) => TableDefinition,
    options: TableWriteOptions,
  ): Promise<PutTableResult> {
    const db = await this.storage.project(projectId);
    try {
      return await db.changeSchema((tx) => declareTable(tx, name, derive, options, isoNow(this.clock)));
    } catch (error) {
      throw translateChangeError(error, name);
    } finally {
      this.cache.delete(projectId);
    }
  }

  /**
   * Declares several tables in order, in one transaction: a table may reference one declared
   * before it, and either every table changes or none does. With `dryRun`, every change is
   * made and checked against the rows, then rolled back. Throws like putTable.
   */
  async putTables(
    projectId: string,
    tables: readonly (readonly [string, unknown])[],
    options: TablesWriteOptions,
  ): Promise<PutTableResult[]> {
    const definitions = tables.map(([name, body]) => parseDefinition(name, body));
    const db = await this.storage.project(projectId);
    let current = '';
    try {
      return await db.changeSchema(async (tx) => {
        const results: PutTableResult[] = [];
        for (const after of definitions) {
          current = after.name;
          results.push(
            await declareTable(
              tx,
              after.name,
              () => after,
              { allowDestructive: options.allowDestructive },
              isoNow(this.clock),
            ),
          );
        }
        if (options.dryRun) throw new RolledBack(results);
        return results;
      });
    } catch (error) {
      if (error instanceof RolledBack) return error.results;
      throw translateChangeError(error, current);
    } finally {
      this.cache.delete(projectId);
    }
  }

  /** Drops a table and its rows. Throws TABLE_NOT_FOUND or TABLE_IN_USE. */
  async deleteTable(projectId: string, name: string): Promise<void> {
    const db = await this.storage.project(projectId);
    try {
      await db.changeSchema(async (tx) => {
        const current = await readDefinitions(tx);
        const before = current.get(name);
        if (!before) throw tableNotFound(name);
        checkDroppable(name, before, [...current.values()]);
        await tx.changeTable(planTableChange(before, null).change);
        await tx.run({ kind: 'delete', table: DEFINITIONS.table, where: sql.eq('name', name) });
      });
    } finally {
      this.cache.delete(projectId);
    }
  }

  /** Forgets a project's cached schema (after it was deleted). */
  invalidate(projectId: string): void {
    this.cache.delete(projectId);
  }
}

/** Thrown to roll back a dry run's transaction; carries the plans. */
class RolledBack extends Error {
  constructor(readonly results: PutTableResult[]) {
    super('dry run rolled back');
  }
}

/**
 * Checks the preconditions against the stored table, derives the new definition from it, then
 * plans and applies the change, all inside one schema transaction (a dry run rolls it back).
 */
async function declareTable(
  tx: SchemaExecutor,
  name: string,
  derive: (before: TableDefinition | null) => TableDefinition,
  options: TableWriteOptions,
  now: string,
): Promise<PutTableResult> {
  const current = await readDefinitions(tx);
  const before = current.get(name) ?? null;
  checkPreconditions(name, before, options.preconditions);
  const after = derive(before);
  if (before === null) checkNewTableName(name);
  const others = [...current.values()].filter((t) => t.name !== after.name);
  checkAgainstOtherTables(after, others);
  const authTable = after.auth_table ? after : others.find((t) => t.auth_table);
  // Compiling checks the rules (unknown columns, @request.body outside create/update).
  compileTable(
    after,
    authColumnsOf(authTable),
    new Map([...others.map((t) => [t.name, t] as const), [after.name, after]]),
  );
  // Every table's rules are checked again: auth fields and relation paths may name this table's columns.
  const broken = ruleBrokenBy(others, authTable, after);
  if (broken) {
    throw new AppError('VALIDATION_FAILED', {
      message: `Table "${broken.table}" has a rule this change would break: ${broken.reason}`,
      suggestion:
        `Change the rules of "${broken.table}" first (PATCH ` +
        `/p/{id}/v1/tables/${broken.table} with only the rules to change: {"rules": {"<operation>": ` +
        '"<new rule>"}}), or keep the columns they use (auth fields, relation paths).',
    });
  }
  const plan = planTableChange(before, after);
  if (plan.destructive.length > 0 && !options.allowDestructive) {
    throw new AppError('SCHEMA_CHANGE_DESTRUCTIVE', {
      message: `Changing table "${after.name}" would lose data: ${plan.destructive.join('; ')}.`,
    });
  }
  await tx.changeTable(plan.change);
  await writeDefinition(tx, after, { created: before === null, now });
  return { table: after, created: before === null, plan };
}

async function readDefinitions(executor: Executor): Promise<Map<string, TableDefinition>> {
  const rows = await executor.all({
    kind: 'select',
    table: DEFINITIONS.table,
    columns: DEFINITIONS.columns,
    orderBy: [
      { column: 'created_at', descending: false },
      { column: 'name', descending: false },
    ],
  });
  return new Map(rows.map((row) => [String(row.name), row.definition as TableDefinition]));
}

/**
 * Stores `table`'s definition row: a new row when the table was `created`, else the row's definition and updated_at.
 */
async function writeDefinition(
  tx: Executor,
  table: TableDefinition,
  { created, now }: { readonly created: boolean; readonly now: string },
): Promise<void> {
  if (created) {
    await tx.run({
      kind: 'insert',
      table: DEFINITIONS.table,
      columns: DEFINITIONS.columns,
      rows: [[table.name, table, now, now]],
    });
  } else {
    await tx.run({
      kind: 'update',
      table: DEFINITIONS.table,
      set: [
        { column: col(DEFINITIONS, 'definition'), value: sql.value(table, 'json') },
        { column: col(DEFINITIONS, 'updated_at'), value: sql.value(now, 'text') },
      ],
      where: sql.eq('name', table.name),
    });
  }
}

function buildSchema(db: ProjectDatabase, definitions: ReadonlyMap<string, TableDefinition>): ProjectSchema {
  const authDefinition = [...definitions.values()].find((t) => t.auth_table);
  const authColumns = authColumnsOf(authDefinition);
  const tables = new Map<string, CompiledTable>();
  for (const definition of definitions.values())
    tables.set(definition.name, compileTable(definition, authColumns, definitions));
  return Object.freeze({ db, tables, authTable: authDefinition ? tables.get(authDefinition.name) : undefined });
}
