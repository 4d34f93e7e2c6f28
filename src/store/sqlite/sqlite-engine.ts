/**
 * The embedded engine: `system.db` plus one file per project under `projects/`, opened
 * lazily and kept in a bounded least-recently-used pool.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { StorageEngine } from '../types.js';
import { lockDataDir } from './data-dir-lock.js';
import { openSqliteFile, SqliteDatabase, type SqliteOptions } from './sqlite-database.js';
import { migrate, PROJECT_MIGRATIONS, SYSTEM_MIGRATIONS } from './sqlite-migrations.js';

export interface SqliteEngineOptions extends SqliteOptions {
  readonly dataDir: string;
  readonly maxOpenProjects: number;
  /**
   * Take the data folder exclusively for this command (e.g. "rowbase serve") until close:
   * servers and writing CLI commands do; read-only commands and the storage tests do not.
   */
  readonly lockAs?: string;
}

// Project ids are validated long before this, but a file path built from one must never escape the folder.
const SAFE_PROJECT_ID = /^[a-z0-9][a-z0-9-]{2,39}$/;

/**
 * Builds the SQLite engine, creating the data folder and migrating the system database. With
 * `lockAs`, takes the folder first; throws DataDirInUseError when another process holds it.
 */
export function buildSqliteEngine(options: SqliteEngineOptions): StorageEngine {
  // Locked before anything is opened or migrated; released by close().
  const lock = options.lockAs === undefined ? undefined : lockDataDir(options.dataDir, options.lockAs);
  let systemConnection: ReturnType<typeof openSqliteFile>;
  try {
    mkdirSync(path.join(options.dataDir, 'projects'), { recursive: true });
    systemConnection = openSqliteFile(path.join(options.dataDir, 'system.db'));
    migrate(systemConnection, SYSTEM_MIGRATIONS);
  } catch (error) {
    lock?.release();
    throw error;
  }
  // Holding the lock, this process is the folder's only writer: caches need not poll data_version.
  const databaseOptions: SqliteOptions = { synchronous: options.synchronous, soleWriter: lock !== undefined };
  const system = new SqliteDatabase(() => systemConnection, undefined, databaseOptions);
  // Every project's database object lives as long as the engine; only open handles are bounded.
  const known = new Map<string, SqliteDatabase>();
  // Projects whose connection is open; which to close first is decided by SqliteDatabase.lastUse.
  const openHandles = new Map<string, SqliteDatabase>();
  let closed = false;

  const fileOf = (projectId: string): string => {
    if (!SAFE_PROJECT_ID.test(projectId)) throw new Error(`unsafe project id ${JSON.stringify(projectId)}`);
    return path.join(options.dataDir, 'projects', `${projectId}.db`);
  };

  const evictBeyondLimit = (keep: string): void => {
    if (openHandles.size <= options.maxOpenProjects) return;
    // Least recently used first. Sorting runs only when a handle beyond the limit opens.
    const byLastUse = [...openHandles].sort(([, a], [, b]) => a.lastUse - b.lastUse);
    for (const [id, candidate] of byLastUse) {
      if (openHandles.size <= options.maxOpenProjects) break;
      // A connection inside a transaction is in use; skip it and close the next oldest.
      if (id === keep || !candidate.release()) continue;
      openHandles.delete(id);
    }
  };

  const databaseOf = (projectId: string): SqliteDatabase => {
    let db = known.get(projectId);
    if (!db) {
      const file = fileOf(projectId);
      db = new SqliteDatabase(
        () => {
          const connection = openSqliteFile(file);
          migrate(connection, PROJECT_MIGRATIONS);
          return connection;
        },
        (opened) => {
          openHandles.set(projectId, opened);
          evictBeyondLimit(projectId);
        },
        databaseOptions,
      );
      known.set(projectId, db);
    }
    return db;
  };

  return {
    capabilities: { name: 'sqlite', sharedAcrossProcesses: false },
    system,
    async createProject(projectId) {
      if (closed) throw new Error('storage is closed');
      const db = databaseOf(projectId);
      void db.connection; // creates the file and its internal tables
      await db.waitDurable();
    },
    async project(projectId) {
      if (closed) throw new Error('storage is closed');
      const db = known.get(projectId);
      if (db) {
        db.markUsed();
        return db;
      }
      if (!existsSync(fileOf(projectId))) throw new Error(`project ${projectId} has no storage`);
      const opened = databaseOf(projectId);
      opened.markUsed();
      return opened;
    },
    async dropProject(projectId) {
      const db = known.get(projectId);
      if (db) {
        known.delete(projectId);
        openHandles.delete(projectId);
        await db.close();
      }
      const file = fileOf(projectId);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
    async ping() {
      if (closed) return false;
      try {
        // A real statement: the file must be readable, not merely have an open handle.
        return system.connection.prepare('SELECT 1').pluck().get() === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...known.values()].map((db) => db.close()));
      known.clear();
      openHandles.clear();
      await system.close();
      // The system connection is opened eagerly (to migrate it); close it even if never used since.
      if (systemConnection.open) systemConnection.close();
      lock?.release();
    },
  };
}
