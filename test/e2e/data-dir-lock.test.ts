/**
 * One process per SQLite data folder (issue 10, item 6): a server holds its folder; a second
 * server on it exits at once naming the folder and the holder's PID; CLI commands that write
 * refuse beside it and say what to do, read-only ones run; the lock goes with the holder
 * (closed, SIGTERM or SIGKILL), so the next server starts at once.
 * @engine sqlite — PostgreSQL deployments share one database across processes by design: no lock.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataDirInUseError } from '../../src/store/data-dir-in-use.js';
import { call, PROCESS_PLATFORM_KEY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startTestServer } from '../helpers/test-server.js';

// Generous: the machine running the suite may be busy, and each process loads the app through tsx.
const START_TIMEOUT_MS = 60_000;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('one process per SQLite data folder', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-lock-'));
    dirs.push(dir);
    return dir;
  };
  const run = (dataDir: string, args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', ...args],
        {
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            DATABASE_URL: '',
            LOG_LEVEL: 'warn',
            PLATFORM_KEY: PROCESS_PLATFORM_KEY,
            PORT: '0',
          },
          timeout: 90_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
  const stop = async (server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') => {
    server.child.kill(signal);
    await server.exited;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe('servers in one process (the test suite does this)', () => {
    it('a second server on a held folder is refused naming it and this PID; after close it is free again', async () => {
      const dataDir = tempDir();
      const first = await startTestServer({ DATABASE_URL: '' }, { dataDir });
      try {
        await assert.rejects(startTestServer({ DATABASE_URL: '' }, { dataDir }), (error: unknown) => {
          assert.ok(error instanceof DataDirInUseError, String(error));
          assert.equal(error.dataDir, dataDir);
          assert.equal(error.holder?.pid, process.pid);
          assert.equal(error.holder?.command, 'rowbase serve');
          assert.match(error.message, new RegExp(`${dataDir}.*PID ${process.pid}`));
          return true;
        });
        const other = await startTestServer({ DATABASE_URL: '' }, { dataDir: tempDir() });
        await other.close();
      } finally {
        await first.close();
      }
      const second = await startTestServer({ DATABASE_URL: '' }, { dataDir });
      assert.equal((await second.request('GET', '/health')).status, 200);
      await second.close();
    });
  });

  describe('a server process and the CLI', () => {
    let dataDir: string;
    let server: ServerProcess;
    let project: { id: string; admin: Record<string, string> };
    const platform = { 'x-platform-key': PROCESS_PLATFORM_KEY };
    const projectIds = async () =>
      (await call(server.url, 'GET', '/v1/projects', platform)).body.data.map((p: { id: string }) => p.id).sort();

    before(async () => {
      dataDir = tempDir();
      server = await startServerProcess(dataDir, {}, START_TIMEOUT_MS);
      const created = await call(server.url, 'POST', '/v1/projects', platform, { name: 'held', id: 'held' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      project = { id: 'held', admin: { 'x-admin-key': created.body.data.admin_key } };
      const table = await call(server.url, 'PUT', '/p/held/v1/tables/notes', project.admin, {
        columns: [{ name: 'body', type: 'text' }],
      });
      assert.equal(table.status, 201, JSON.stringify(table.body));
    });
    after(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) await stop(server);
    });

    it('the holder is recorded: rowbase.pid names the server PID and "rowbase serve"', () => {
      const [pid, command] = readFileSync(path.join(dataDir, 'rowbase.pid'), 'utf8').split('\n');
      assert.equal(Number(pid), server.child.pid);
      assert.equal(command, 'rowbase serve');
    });

    it('a second rowbase serve exits at once (1), naming the folder and the PID; the first keeps serving', async () => {
      const second = await run(dataDir, ['serve']);
      assert.equal(second.code, 1, second.stdout + second.stderr);
      assert.match(second.stderr, /DATA_DIR_IN_USE/);
      assert.ok(second.stderr.includes(dataDir), second.stderr);
      assert.ok(second.stderr.includes(`PID ${server.child.pid}`), second.stderr);
      assert.doesNotMatch(second.stdout, /listening/);
      assert.equal((await call(server.url, 'GET', '/health')).status, 200);
    });

    it('serve --json: the refusal is an error envelope on stderr', async () => {
      const second = await run(dataDir, ['serve', '--json']);
      assert.equal(second.code, 1);
      const { error } = JSON.parse(second.stderr);
      assert.equal(error.code, 'DATA_DIR_IN_USE');
      assert.ok(error.message.includes(`PID ${server.child.pid}`), error.message);
      assert.match(error.suggestion, /--data-dir/);
    });

    const refusals: [string, () => string[], RegExp][] = [
      ['projects create', () => ['projects', 'create', '--name', 'beside', '--json'], /POST \/v1\/projects/],
      ['projects delete', () => ['projects', 'delete', 'held', '--json'], /DELETE \/v1\/projects\/held/],
      [
        'schema apply',
        () => ['schema', 'apply', '--project', 'held', writeSchema(), '--json'],
        /PUT \/p\/held\/v1\/tables\/NAME.*--dry-run/,
      ],
      [
        'import',
        () => ['import', path.join(dataDir, 'held.rowbase'), '--project', 'held-copy', '--json'],
        /Stop the server/,
      ],
    ];
    const writeSchema = () => {
      const file = path.join(dataDir, 'schema.json');
      writeFileSync(file, JSON.stringify({ tables: { extra: { columns: [{ name: 'x', type: 'text' }] } } }));
      return file;
    };

    it('export (read-only) runs beside the server', async () => {
      const exported = await run(dataDir, [
        'export',
        '--project',
        'held',
        path.join(dataDir, 'held.rowbase'),
        '--json',
      ]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(JSON.parse(exported.stdout).counts.tables, 1);
    });

    it('projects list and schema apply --dry-run (read-only) run beside the server', async () => {
      const list = await run(dataDir, ['projects', 'list', '--json']);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(
        JSON.parse(list.stdout).data.map((p: { id: string }) => p.id),
        ['held'],
      );
      const dry = await run(dataDir, ['schema', 'apply', '--project', 'held', writeSchema(), '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /create table extra/);
    });

    for (const [label, args, instead] of refusals) {
      it(`${label} beside the server → exit 1, DATA_DIR_IN_USE naming the PID and what to do; no change`, async () => {
        const refused = await run(dataDir, args());
        assert.equal(refused.code, 1, refused.stdout + refused.stderr);
        const { error } = JSON.parse(refused.stderr);
        assert.equal(error.code, 'DATA_DIR_IN_USE');
        assert.ok(error.message.includes(dataDir) && error.message.includes(`PID ${server.child.pid}`), error.message);
        assert.match(error.suggestion, instead);
        assert.match(error.suggestion, new RegExp(`PID ${server.child.pid}`));
        assert.deepEqual(await projectIds(), ['held']);
        const tables = await call(server.url, 'GET', '/p/held/v1/tables', project.admin);
        assert.deepEqual(
          tables.body.data.map((t: { name: string }) => t.name),
          ['notes'],
        );
      });
    }

    it('after SIGKILL the folder is free at once: a new server starts, and records itself as the holder', async () => {
      await stop(server, 'SIGKILL');
      server = await startServerProcess(dataDir, {}, START_TIMEOUT_MS);
      assert.deepEqual(await projectIds(), ['held']);
      assert.equal(Number(readFileSync(path.join(dataDir, 'rowbase.pid'), 'utf8').split('\n')[0]), server.child.pid);
    });

    it('after SIGTERM the holder record is gone and the writing commands run', async () => {
      await stop(server);
      assert.equal(existsSync(path.join(dataDir, 'rowbase.pid')), false);
      const imported = await run(dataDir, [
        'import',
        path.join(dataDir, 'held.rowbase'),
        '--project',
        'held-copy',
        '--json',
      ]);
      assert.equal(imported.code, 0, imported.stderr);
      const deleted = await run(dataDir, ['projects', 'delete', 'held', '--json']);
      assert.equal(deleted.code, 0, deleted.stderr);
      const list = await run(dataDir, ['projects', 'list', '--json']);
      assert.deepEqual(
        JSON.parse(list.stdout).data.map((p: { id: string }) => p.id),
        ['held-copy'],
      );
    });
  });

  describe('a writing CLI command holds the folder too', () => {
    it('a server cannot start while the folder is held by another process, and names it', async () => {
      const dataDir = tempDir();
      // Another process holding the folder, as a long import would: the same lock, taken by a child.
      const holder = execFile(process.execPath, [
        '--import',
        'tsx',
        '-e',
        `
        const { lockDataDir } = await import('./src/store/sqlite/data-dir-lock.ts');
        globalThis.held = lockDataDir(${JSON.stringify(dataDir)}, 'rowbase import');
        process.stdout.write('held\\n');
        setInterval(() => {}, 1000);
      `,
      ]);
      try {
        await new Promise<void>((resolve, reject) => {
          holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
          holder.once('exit', () => reject(new Error('the holder exited')));
        });
        const refused = await run(dataDir, ['serve', '--json']);
        assert.equal(refused.code, 1, refused.stdout + refused.stderr);
        const { error } = JSON.parse(refused.stderr);
        assert.equal(error.code, 'DATA_DIR_IN_USE');
        assert.ok(error.message.includes(`rowbase import (PID ${holder.pid}`), error.message);
        const create = await run(dataDir, ['projects', 'create', '--name', 'x', '--json']);
        assert.equal(create.code, 1);
        assert.match(
          JSON.parse(create.stderr).error.suggestion,
          new RegExp(`Wait for rowbase import \\(PID ${holder.pid}\\)`),
        );
      } finally {
        holder.kill('SIGKILL');
      }
    });
  });
});
