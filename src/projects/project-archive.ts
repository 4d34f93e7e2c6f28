/**
 * The project archive: one project as a stream of JSON records (one per line in the file),
 * the same on every engine, so a project moves from SQLite to PostgreSQL and back losing
 * nothing. This file defines the records and writes them; `project-import.ts` reads them.
 *
 * Records, in order: header, project, settings (with the JWT secret), keys (hashes only),
 * tables (definitions), rows of every table (every physical column, password hashes
 * included), internal rows (sessions, spent refresh tokens, one-time tokens), mail (the
 * project's queue/outbox),
 * end (counts, so a truncated file is refused).
 */
import { AppError } from '../errors/app-error.js';
import { sql, type ColumnRef, type SelectStatement } from '../query/sql-tree.js';
import type { Executor, Row, StorageEngine } from '../store/types.js';
import { physicalColumns, type TableDefinition } from '../schema/definition.js';
import {
  MAIL_QUEUE,
  ONE_TIME_TOKENS,
  PROJECT_KEYS,
  PROJECT_SETTINGS,
  PROJECTS,
  SESSIONS,
  SPENT_REFRESH_TOKENS,
  TABLE_DEFINITIONS,
} from '../store/system-tables.js';

export const ARCHIVE_FORMAT = 'rowbase-project-archive';
export const ARCHIVE_VERSION = 1;

export type ArchiveRecord =
  | {
      readonly kind: 'header';
      readonly format: string;
      readonly version: number;
      readonly exported_at: string;
      readonly engine: string;
    }
  | { readonly kind: 'project'; readonly project: Row }
  | { readonly kind: 'settings'; readonly values: Row }
  | { readonly kind: 'key'; readonly values: Row }
  | {
      readonly kind: 'table';
      readonly name: string;
      readonly definition: TableDefinition;
      readonly created_at: string;
      readonly updated_at: string;
    }
  | { readonly kind: 'row'; readonly table: string; readonly values: Row }
  | { readonly kind: 'internal'; readonly table: string; readonly values: Row }
  | { readonly kind: 'mail'; readonly values: Row }
  | { readonly kind: 'end'; readonly counts: Readonly<Record<string, number>> };

/** The project's internal tables that travel with it, and their key for paging. */
export const INTERNAL_TABLES: readonly {
  readonly table: string;
  readonly key: string;
  readonly columns: readonly ColumnRef[];
}[] = [
  { table: SESSIONS.table, key: 'id', columns: SESSIONS.columns },
  // Refresh tokens spent by rotation: with them, a replay of an old token after the move is still caught as reuse.
  { table: SPENT_REFRESH_TOKENS.table, key: 'hash', columns: SPENT_REFRESH_TOKENS.columns },
  { table: ONE_TIME_TOKENS.table, key: 'hash', columns: ONE_TIME_TOKENS.columns },
];

/** The table definitions rows, as the schema service stores them. */
export const DEFINITION_COLUMNS: readonly ColumnRef[] = TABLE_DEFINITIONS.columns;

/** Mail queue columns in the archive: all but project_id (the importing project's id is used). */
export const MAIL_COLUMNS: readonly ColumnRef[] = MAIL_QUEUE.columns.filter((c) => c.name !== 'project_id');

const PAGE = 1000;

/** Reads every row of a table in pages ordered by a unique text key (the same order on every engine). */
export async function* readAll(
  db: Executor,
  table: string,
  columns: readonly ColumnRef[],
  key: string,
  where?: SelectStatement['where'],
): AsyncGenerator<Row> {
  let after: string | undefined;
  for (;;) {
    const page = await db.all({
      kind: 'select',
      table,
      columns,
      where: sql.and(
        where,
        after === undefined
          ? undefined
          : { kind: 'compare', op: '>', left: sql.column(key), right: sql.value(after, 'text') },
      ),
      orderBy: [{ column: key, descending: false }],
      limit: PAGE,
    });
    yield* page;
    if (page.length < PAGE) return;
    after = String(page[page.length - 1]![key]);
  }
}

/**
 * Writes the archive of a project to `write`, record by record (nothing is held in memory
 * but one page of rows). Throws PROJECT_NOT_FOUND.
 */
export async function exportProject(
  storage: StorageEngine,
  projectId: string,
  now: string,
  write: (record: ArchiveRecord) => Promise<void>,
): Promise<Record<string, number>> {
  const system = storage.system;
  const project = await system.first({
    kind: 'select',
    table: PROJECTS.table,
    columns: PROJECTS.columns,
    where: sql.eq('id', projectId),
  });
  if (!project)
    throw new AppError('PROJECT_NOT_FOUND', {
      message: `No project has the id "${projectId}".`,
      suggestion: 'List projects with: rowbase projects list',
    });
  const counts: Record<string, number> = {};
  const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);

  await write({
    kind: 'header',
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    exported_at: now,
    engine: storage.capabilities.name,
  });
  await write({ kind: 'project', project });
  const settings = await system.first({
    kind: 'select',
    table: PROJECT_SETTINGS.table,
    columns: PROJECT_SETTINGS.columns,
    where: sql.eq('project_id', projectId),
  });
  if (settings) await write({ kind: 'settings', values: omit(settings, 'project_id') });
  for await (const key of readAll(
    system,
    PROJECT_KEYS.table,
    PROJECT_KEYS.columns,
    'id',
    sql.eq('project_id', projectId),
  )) {
    await write({ kind: 'key', values: omit(key, 'project_id') });
    count('keys');
  }

  const db = await storage.project(projectId);
  const definitions: TableDefinition[] = [];
  for await (const row of readAll(db, TABLE_DEFINITIONS.table, DEFINITION_COLUMNS, 'name')) {
    const definition = row.definition as TableDefinition;
    definitions.push(definition);
    await write({
      kind: 'table',
      name: String(row.name),
      definition,
      created_at: String(row.created_at),
      updated_at: String(row.updated_at),
    });
    count('tables');
  }
  for (const definition of definitions) {
    const columns = physicalColumns(definition).map((c): ColumnRef => ({ name: c.name, type: c.type }));
    for await (const values of readAll(db, definition.name, columns, 'id')) {
      await write({ kind: 'row', table: definition.name, values });
      count(`rows:${definition.name}`);
    }
  }
  for (const internal of INTERNAL_TABLES) {
    for await (const values of readAll(db, internal.table, internal.columns, internal.key)) {
      await write({ kind: 'internal', table: internal.table, values });
      count(internal.table);
    }
  }
  for await (const mail of readAll(
    system,
    MAIL_QUEUE.table,
    MAIL_QUEUE.columns,
    'id',
    sql.eq('project_id', projectId),
  )) {
    await write({ kind: 'mail', values: omit(mail, 'project_id') });
    count('mail');
  }
  await write({ kind: 'end', counts });
  return counts;
}

function omit(row: Row, name: string): Row {
  const { [name]: _dropped, ...rest } = row;
  return rest;
}
