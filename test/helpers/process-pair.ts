/**
 * Two `rowbase serve` processes on one fresh test database (PostgreSQL), with one project
 * created through the first: the setting of the tests of several processes sharing a database.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from './server-process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface ProcessPair {
  readonly database: TestDatabase;
  readonly a: ServerProcess;
  readonly b: ServerProcess;
  /** The project's admin key header. */
  readonly admin: Record<string, string>;
  /** Stops the processes still running (SIGTERM), drops the database, removes the data folders. */
  stop(): Promise<void>;
}

/** Starts the pair and creates `project` (its id and name) through `a`; `env` adds settings to both. */
export async function startProcessPair(project: string, env: Record<string, string> = {}): Promise<ProcessPair> {
  const database = await createTestDatabase();
  const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'rowbase-pair-')));
  const [a, b] = await Promise.all(dirs.map((dir) => startServerProcess(dir, { ...env, DATABASE_URL: database.url })));
  const created = await call(
    a!.url,
    'POST',
    '/v1/projects',
    { 'x-platform-key': PROCESS_PLATFORM_KEY },
    { name: project, id: project },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return {
    database,
    a: a!,
    b: b!,
    admin: { 'x-admin-key': created.body.data.admin_key },
    async stop() {
      for (const server of [a!, b!]) {
        if (server.child.exitCode !== null) continue;
        server.child.kill('SIGTERM');
        await server.exited;
      }
      await database.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
