/**
 * The embedded engine: `system.db` plus one file per project under `projects/`, opened
 * lazily and kept in a bounded least-recently-used pool.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { StorageEngine } from '../types.js';
import { openSqliteFile, SqliteDatabase, type SqliteOptions } from './sqlite-database.js';
import { migrate, PROJECT_MIGRATIONS, SYSTEM_MIGRATIONS } from './sqlite-migrations.js';

export interface SqliteEngineOptions extends SqliteOptions {
  readonly dataDir: string;
  readonly maxOpenProjects: number;
}

// Project ids are validated long before this, but a file path built from one must never escape the folder.
const SAFE_PROJECT_ID = /^[a-z0-9][a-z0-9-]{2,39}$/;

/** Builds the SQLite engine, creating the data folder and migrating the system database. */
export function buildSqliteEngine(options: SqliteEngineOptions): StorageEngine {
  mkdirSync(path.join(options.dataDir, 'projects'), { recursive: true });
  const systemConnection = openSqliteFile(path.join(options.dataDir, 'system.db'), options);
  migrate(systemConnection, SYSTEM_MIGRATIONS);
  const system = new SqliteDatabase(systemConnection);
  const open = new Map<string, SqliteDatabase>();
  let closed = false;

  const fileOf = (projectId: string): string => {
    if (!SAFE_PROJECT_ID.test(projectId)) throw new Error(`unsafe project id ${JSON.stringify(projectId)}`);
    return path.join(options.dataDir, 'projects', `${projectId}.db`);
  };

  const openProject = (projectId: string): SqliteDatabase => {
    const connection = openSqliteFile(fileOf(projectId), options);
    migrate(connection, PROJECT_MIGRATIONS);
    const db = new SqliteDatabase(connection);
    open.set(projectId, db);
    if (open.size > options.maxOpenProjects) {
      for (const [id, candidate] of open) {
        if (open.size <= options.maxOpenProjects) break;
        // A connection inside a transaction is in use; skip it and close the next oldest.
        if (candidate.busy || id === projectId) continue;
        open.delete(id);
        candidate.close();
      }
    }
    return db;
  };

  return {
    capabilities: { name: 'sqlite', sharedAcrossProcesses: false },
    system,
    async createProject(projectId) {
      if (closed) throw new Error('storage is closed');
      if (!open.has(projectId)) openProject(projectId);
    },
    async project(projectId) {
      if (closed) throw new Error('storage is closed');
      const cached = open.get(projectId);
      if (cached) {
        // Re-insert to mark it most recently used.
        open.delete(projectId);
        open.set(projectId, cached);
        return cached;
      }
      if (!existsSync(fileOf(projectId))) throw new Error(`project ${projectId} has no storage`);
      return openProject(projectId);
    },
    async dropProject(projectId) {
      const db = open.get(projectId);
      if (db) {
        open.delete(projectId);
        db.close();
      }
      const file = fileOf(projectId);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
    async ping() {
      return !closed && system.connection.open;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const db of open.values()) db.close();
      open.clear();
      system.close();
    },
  };
}
