/**
 * Reads a project archive (`project-archive.ts`) into storage of any engine. The project
 * becomes visible (its `projects` row is written) only once every table, row and reference
 * is in place, and a failed import removes what it wrote, so an import is all or nothing.
 *
 * Under the archive's own id the project keeps its identity: key hashes, JWT secret,
 * sessions, one-time tokens and mail move with it, so clients and signed-in users carry on.
 * Under another id (`targetId`) it is a copy: fresh keys (returned once), a fresh JWT secret,
 * and no sessions, tokens or mail of the original.
 */
import { AppError } from '../errors/app-error.js';
import { newRowId } from '../lib/ids.js';
import { randomBase62 } from '../lib/random.js';
import { sql, type ColumnRef } from '../query/sql-tree.js';
import { StoreError, type Row, type StorageEngine } from '../store/types.js';
import { physicalColumns, type TableDefinition } from '../schema/definition.js';
import { parseDefinition } from '../tables/parse-definition.js';
import { buildStoredRowCheck, type StoredRowProblem } from '../tables/row-validator.js';
import { generateKey } from './keys.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  DEFINITION_COLUMNS,
  INTERNAL_TABLES,
  MAIL_COLUMNS,
  type ArchiveRecord,
} from './project-archive.js';
import { PROJECT_ID_PATTERN } from './project-registry.js';
import { readSettings } from './settings.js';
import { MAIL_QUEUE, PROJECT_KEYS, PROJECT_SETTINGS, PROJECTS, TABLE_DEFINITIONS } from '../store/system-tables.js';

export interface ImportResult {
  readonly projectId: string;
  /** True when the archive's keys, secret and sessions were kept (same id). */
  readonly keptIdentity: boolean;
  /** New key values, only for a copy under another id. */
  readonly adminKey?: string;
  readonly publishableKey?: string;
  readonly counts: Readonly<Record<string, number>>;
}

const BATCH = 500;

function invalid(message: string): AppError {
  return new AppError('VALIDATION_FAILED', {
    message: `The archive is not usable: ${message}`,
    suggestion: 'Use a file written by rowbase export, complete and unedited.',
  });
}

/**
 * A storage refusal of archive rows (a duplicate unique value, a dangling reference) as
 * VALIDATION_FAILED naming `where`; the driver's own words are never shown. Other errors unchanged.
 */
function storeRefusal(error: unknown, where: string): unknown {
  if (!(error instanceof StoreError) || error.kind === 'busy' || error.kind === 'unavailable') return error;
  const column = error.column ? `column "${error.column}"` : 'a column';
  const reasons: Record<'unique' | 'reference' | 'not-null' | 'check', string> = {
    unique: `two rows have the same value in ${column}, which is unique`,
    reference: 'a row refers to a row that does not exist',
    'not-null': `a row has no value for ${column}, which is required`,
    check: `a value does not fit ${column}`,
  };
  return invalid(`${where}: ${reasons[error.kind]}.`);
}

/** Values of `row` in the order of `columns` (missing ones null). */
function valuesOf(row: Row, columns: readonly ColumnRef[]): unknown[] {
  return columns.map((c) => row[c.name] ?? null);
}

/** Collects rows into multi-row inserts of BATCH rows. */
class Batches {
  private readonly pending = new Map<string, { columns: readonly ColumnRef[]; rows: unknown[][] }>();

  constructor(
    private readonly flush: (table: string, columns: readonly ColumnRef[], rows: unknown[][]) => Promise<void>,
  ) {}

  async add(table: string, columns: readonly ColumnRef[], row: Row): Promise<void> {
    const entry = this.pending.get(table) ?? { columns, rows: [] };
    this.pending.set(table, entry);
    entry.rows.push(valuesOf(row, columns));
    if (entry.rows.length >= BATCH) await this.drain(table);
  }

  async drain(table?: string): Promise<void> {
    for (const [name, entry] of this.pending) {
      if (table !== undefined && name !== table) continue;
      if (entry.rows.length > 0) await this.flush(name, entry.columns, entry.rows.splice(0));
    }
  }
}

/**
 * Imports an archive. Throws VALIDATION_FAILED for a malformed or truncated archive,
 * PROJECT_EXISTS when the target id is taken, and StoreError kinds for rows that break the
 * archive's own constraints.
 */
export async function importProject(
  storage: StorageEngine,
  records: AsyncIterable<ArchiveRecord>,
  options: { targetId?: string; now: string },
): Promise<ImportResult> {
  const iterator = records[Symbol.asyncIterator]();
  const next = async (): Promise<ArchiveRecord> => {
    const item = await iterator.next();
    if (item.done) throw invalid('it ends before its end record (truncated?).');
    return item.value;
  };
  const header = await next();
  if (header.kind !== 'header' || header.format !== ARCHIVE_FORMAT)
    throw invalid('it does not start with a rowbase archive header.');
  if (header.version !== ARCHIVE_VERSION)
    throw invalid(`version ${header.version} is not supported (this rowbase reads version ${ARCHIVE_VERSION}).`);
  const projectRecord = await next();
  if (projectRecord.kind !== 'project') throw invalid('the project record is missing.');
  const source = projectRecord.project;
  const id = options.targetId ?? String(source.id);
  if (!PROJECT_ID_PATTERN.test(id))
    throw new AppError('VALIDATION_FAILED', {
      message: `"${id}" is not a valid project id.`,
      suggestion: 'Use 3 to 40 characters of a-z, 0-9 and "-".',
    });
  const target: ImportTarget = { id, keepsIdentity: id === source.id };
  const taken = await storage.system.first({
    kind: 'select',
    table: PROJECTS.table,
    columns: PROJECTS.columns,
    where: sql.eq('id', id),
  });
  if (taken)
    throw new AppError('PROJECT_EXISTS', {
      message: `A project with the id "${id}" already exists.`,
      suggestion: 'Delete it first, or import under another id with --project NEW_ID.',
    });

  await storage.createProject(id);
  try {
    return await fill(storage, target, source, next, options.now);
  } catch (error) {
    // Nothing of a failed import may stay behind: the project row was never written.
    await storage.system
      .run({ kind: 'delete', table: MAIL_QUEUE.table, where: sql.eq('project_id', id) })
      .catch(() => undefined);
    await storage.dropProject(id);
    throw error;
  }
}

/**
 * Where an import goes: the new project's id, and whether it keeps
 * the archive's identity (imported under the archive's own id).
 */
interface ImportTarget {
  readonly id: string;
  readonly keepsIdentity: boolean;
}

async function fill(
  storage: StorageEngine,
  target: ImportTarget,
  source: Row,
  next: () => Promise<ArchiveRecord>,
  now: string,
): Promise<ImportResult> {
  const { id, keepsIdentity: keep } = target;
  const db = await storage.project(id);
  const tables = new Map<
    string,
    {
      definition: TableDefinition;
      columns: ColumnRef[];
      check: (values: Row) => StoredRowProblem | undefined;
      rows: number;
    }
  >();
  const counts: Record<string, number> = {};
  const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);
  let settings: Row | undefined;
  const keys: Row[] = [];
  const mail: Row[] = [];
  let tablesCreated = false;
  const batches = new Batches(async (table, columns, rows) => {
    await db
      .transaction((tx) => tx.run({ kind: 'insert', table, columns, rows }))
      .catch((error: unknown) => {
        throw storeRefusal(error, `rows of table "${table}"`);
      });
  });

  // Tables are created without their references first, so rows load in any order (cycles and
  // self-references included); the references are added, and checked, once every row is in.
  const createTables = async () => {
    tablesCreated = true;
    await db.changeSchema(async (tx) => {
      for (const { definition } of tables.values()) {
        await tx.changeTable({ before: null, after: withoutReferences(definition), resetColumns: [] });
      }
    });
  };

  for (;;) {
    const record = await next();
    if ((record.kind === 'row' || record.kind === 'internal' || record.kind === 'end') && !tablesCreated)
      await createTables();
    switch (record.kind) {
      case 'settings':
        settings = record.values;
        break;
      case 'key':
        keys.push(record.values);
        count('keys');
        break;
      case 'table': {
        if (tablesCreated) throw invalid(`table "${record.name}" comes after rows.`);
        // The stored definition carries its name; the parser takes the body a PUT would send.
        const { name: _name, ...body } = record.definition;
        const definition = parseDefinition(record.name, body);
        tables.set(record.name, {
          definition,
          columns: physicalColumns(definition).map((c) => ({ name: c.name, type: c.type })),
          check: buildStoredRowCheck(definition),
          rows: 0,
        });
        await db.run({
          kind: 'insert',
          table: TABLE_DEFINITIONS.table,
          columns: DEFINITION_COLUMNS,
          rows: [[record.name, definition, record.created_at, record.updated_at]],
        });
        count('tables');
        break;
      }
      case 'row': {
        const table = tables.get(record.table);
        if (!table) throw invalid(`rows of "${record.table}", a table it does not define.`);
        // Checked as a create would be, so a bad value is named here rather than by the database.
        table.rows += 1;
        const problem = table.check(record.values);
        if (problem)
          throw invalid(
            `table "${record.table}", row ${table.rows} (id ${JSON.stringify(record.values.id ?? null)}), ` +
              `column "${problem.column}": ${problem.reason}.`,
          );
        await batches.add(record.table, table.columns, record.values);
        count(`rows:${record.table}`);
        break;
      }
      case 'internal': {
        const internal = INTERNAL_TABLES.find((t) => t.table === record.table);
        if (!internal) throw invalid(`rows of the unknown internal table "${record.table}".`);
        count(record.table);
        if (keep) await batches.add(record.table, internal.columns, record.values);
        break;
      }
      case 'mail':
        count('mail');
        if (keep) mail.push(record.values);
        break;
      case 'end': {
        const expected = JSON.stringify(Object.entries(record.counts).sort());
        if (JSON.stringify(Object.entries(counts).sort()) !== expected)
          throw invalid(`its record counts ${expected} do not match what it holds (truncated or edited?).`);
        await batches.drain();
        await addReferences(
          db,
          [...tables.values()].map((t) => t.definition),
        ).catch((error: unknown) => {
          throw storeRefusal(error, 'rows of its tables');
        });
        return writeProject(storage, target, source, settings, keys, mail, counts, now);
      }
      default:
        throw invalid(`an unexpected "${record.kind}" record.`);
    }
  }
}

function withoutReferences(definition: TableDefinition): TableDefinition {
  return { ...definition, columns: definition.columns.map(({ references: _dropped, ...column }) => column) };
}

async function addReferences(
  db: Awaited<ReturnType<StorageEngine['project']>>,
  definitions: readonly TableDefinition[],
): Promise<void> {
  const referring = definitions.filter((d) => d.columns.some((c) => c.references));
  if (referring.length === 0) return;
  await db.changeSchema(async (tx) => {
    for (const definition of referring)
      await tx.changeTable({ before: withoutReferences(definition), after: definition, resetColumns: [] });
  });
}

/** Writes the system rows last, in one transaction: from here on the project exists. */
async function writeProject(
  storage: StorageEngine,
  target: ImportTarget,
  source: Row,
  settings: Row | undefined,
  keys: readonly Row[],
  mail: readonly Row[],
  counts: Record<string, number>,
  now: string,
): Promise<ImportResult> {
  const { id, keepsIdentity: keep } = target;
  const admin = keep ? undefined : generateKey('sk');
  const publishable = keep ? undefined : generateKey('pk');
  await storage.system.transaction(async (tx) => {
    await tx.run({
      kind: 'insert',
      table: PROJECTS.table,
      columns: PROJECTS.columns,
      rows: [[id, String(source.name), String(source.created_at)]],
    });
    const jwtSecret = keep && typeof settings?.jwt_secret === 'string' ? settings.jwt_secret : randomBase62(64);
    const rotatedAt = keep && typeof settings?.jwt_rotated_at === 'string' ? settings.jwt_rotated_at : now;
    await tx.run({
      kind: 'insert',
      table: PROJECT_SETTINGS.table,
      columns: PROJECT_SETTINGS.columns,
      rows: [[id, readSettings(settings?.settings), jwtSecret, rotatedAt]],
    });
    const keyRows = keep
      ? keys.map((key) => valuesOf({ ...key, project_id: id }, PROJECT_KEYS.columns))
      : (
          [
            ['sk', admin!],
            ['pk', publishable!],
          ] as const
        ).map(([type, key]) => [newRowId(), id, type, key.prefix, key.hash, now, null, null]);
    if (keyRows.length > 0)
      await tx.run({ kind: 'insert', table: PROJECT_KEYS.table, columns: PROJECT_KEYS.columns, rows: keyRows });
    if (mail.length > 0) {
      const columns = [...MAIL_COLUMNS, MAIL_QUEUE.columns.find((c) => c.name === 'project_id')!];
      await tx.run({
        kind: 'insert',
        table: MAIL_QUEUE.table,
        columns,
        rows: mail.map((row) => valuesOf({ ...row, project_id: id }, columns)),
      });
    }
  });
  return {
    projectId: id,
    keptIdentity: keep,
    ...(admin && { adminKey: admin.value, publishableKey: publishable!.value }),
    counts,
  };
}
