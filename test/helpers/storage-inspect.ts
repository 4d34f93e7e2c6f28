/**
 * Looks inside a test server's storage, whichever engine it runs on: the few scenario tests
 * that check what the HTTP API cannot show (indexes, removed storage) use these instead of
 * opening SQLite files, so they run on PostgreSQL too.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../../src/config/config.js';
import { projectSchema } from '../../src/store/postgres/pg-migrations.js';

/** What identifies a server's storage: its config (databaseUrl or dataDir). */
type StorageOf = Pick<Config, 'databaseUrl' | 'dataDir'>;

async function onPostgres<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function sqliteFile(storage: StorageOf, projectId: string): string {
  return path.join(storage.dataDir, 'projects', `${projectId}.db`);
}

/** The column lists of a table's indexes (not its primary key), each in index order. */
export async function indexColumns(storage: StorageOf, projectId: string, table: string): Promise<string[][]> {
  if (storage.databaseUrl) {
    return onPostgres(storage.databaseUrl, async (client) => {
      const result = await client.query(
        `SELECT array_agg(a.attname::text ORDER BY k.ord) AS columns
           FROM pg_index i
           JOIN pg_class t ON t.oid = i.indrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace
           CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
          WHERE n.nspname = $1 AND t.relname = $2 AND NOT i.indisprimary
          GROUP BY i.indexrelid`,
        [projectSchema(projectId), table],
      );
      return result.rows.map((row: { columns: string[] }) => row.columns);
    });
  }
  const db = new Database(sqliteFile(storage, projectId), { readonly: true, fileMustExist: true });
  try {
    const list = db.prepare(`SELECT name FROM pragma_index_list(?) WHERE origin = 'c'`).pluck().all(table) as string[];
    return list.map(
      (name) => db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(name) as string[],
    );
  } finally {
    db.close();
  }
}

/** True while the project has storage (its SQLite file or WAL, or its PostgreSQL schema). */
export async function projectStorageExists(storage: StorageOf, projectId: string): Promise<boolean> {
  if (storage.databaseUrl) {
    return onPostgres(storage.databaseUrl, async (client) => {
      const result = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [projectSchema(projectId)]);
      return result.rowCount === 1;
    });
  }
  const file = sqliteFile(storage, projectId);
  return existsSync(file) || existsSync(`${file}-wal`);
}

/** Destroys a project's storage behind the server's back (to test faults). */
export async function destroyProjectStorage(storage: StorageOf, projectId: string): Promise<void> {
  if (storage.databaseUrl) {
    await onPostgres(storage.databaseUrl, (client) =>
      client.query(`DROP SCHEMA "${projectSchema(projectId)}" CASCADE`),
    );
    return;
  }
  rmSync(sqliteFile(storage, projectId));
}
