/**
 * The rowbase CLI as a process (`node --import tsx src/main.ts ...`) over a temporary data
 * folder: projects create/list/delete, schema apply with its plan, --help and exit codes. These
 * commands write, so they run with no server on the folder; beside a running server they refuse
 * (test/e2e/data-dir-lock.test.ts).
 * @engine sqlite — the commands run over DATA_DIR and the test checks the project files, so the
 * PostgreSQL pass leaves it out.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROCESS_PLATFORM_KEY } from '../helpers/server-process.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('rowbase CLI', () => {
  let dataDir: string;
  const run = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', ...args],
        {
          env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PLATFORM_KEY: PROCESS_PLATFORM_KEY },
          timeout: 30_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
  const writeSchema = (name: string, schema: unknown): string => {
    const file = path.join(dataDir, name);
    writeFileSync(file, JSON.stringify(schema));
    return file;
  };

  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('help and usage', () => {
    const helps = [
      ['--help'],
      ['serve', '--help'],
      ['projects', '--help'],
      ['projects', 'create', '--help'],
      ['schema', 'apply', '--help'],
    ];
    it('--help on every command exits 0 and prints usage; an unknown command exits 2', async () => {
      // Two processes at a time: each loads the whole app through tsx, and other suites share the CPU.
      const results: Run[] = [];
      for (let i = 0; i < helps.length; i += 2) results.push(...(await Promise.all(helps.slice(i, i + 2).map(run))));
      const unknown = await run(['frobnicate']);
      results.forEach((result, i) => {
        assert.equal(result.code, 0, `${helps[i]!.join(' ')}: ${result.stderr}`);
        assert.match(result.stdout, /Usage/i, helps[i]!.join(' '));
      });
      assert.match(results[1]!.stdout, /DATA_DIR/, 'serve --help lists the settings');
      assert.match(results[4]!.stdout, /--dry-run/);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /frobnicate/);
    });
  });

  describe('projects and schemas', () => {
    let projectId: string;
    // The declared tables, read from the project's file (no server runs on the folder here).
    const tableNames = async () => {
      const db = new Database(path.join(dataDir, 'projects', `${projectId}.db`), { readonly: true });
      try {
        return (db.prepare('SELECT name FROM _rb_tables').pluck().all() as string[]).sort();
      } finally {
        db.close();
      }
    };
    const listed = async () =>
      JSON.parse((await run(['projects', 'list', '--json'])).stdout).data.map((p: { id: string }) => p.id);

    it('projects create --name demo --json prints the project and its keys; its storage exists at once', async () => {
      const result = await run(['projects', 'create', '--name', 'demo', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const { data } = JSON.parse(result.stdout);
      assert.equal(data.name, 'demo');
      assert.match(data.id, /^[a-z0-9][a-z0-9-]{2,39}$/);
      assert.match(data.admin_key, /^sk_[0-9A-Za-z]{32,}$/);
      assert.match(data.publishable_key, /^pk_[0-9A-Za-z]{32,}$/);
      projectId = data.id;
      assert.deepEqual(await tableNames(), []);
    });

    it('projects create with a taken --id fails with PROJECT_EXISTS (exit 1, JSON error on stderr)', async () => {
      const result = await run(['projects', 'create', '--name', 'again', '--id', projectId, '--json']);
      assert.equal(result.code, 1);
      assert.equal(JSON.parse(result.stderr).error.code, 'PROJECT_EXISTS');
    });

    it('projects list --json lists it, without keys', async () => {
      const result = await run(['projects', 'list', '--json']);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        JSON.parse(result.stdout).data.map((p: { id: string }) => p.id),
        [projectId],
      );
      assert.doesNotMatch(result.stdout, /sk_|pk_/);
    });

    it('schema apply --dry-run prints the plan and changes nothing', async () => {
      const file = writeSchema('schema-1.json', {
        tables: {
          owners: { columns: [{ name: 'name', type: 'text', required: true }] },
          pets: {
            columns: [
              { name: 'owner', type: 'text', references: { table: 'owners', on_delete: 'cascade' } },
              { name: 'vaccinated', type: 'boolean', default: false },
            ],
          },
        },
      });
      const result = await run(['schema', 'apply', '--project', projectId, file, '--dry-run']);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /create table owners/);
      assert.match(result.stdout, /create table pets/);
      assert.match(result.stdout, /nothing was changed/i);
      assert.deepEqual(await tableNames(), []);
    });

    it('schema apply prints the plan, then applies it (a table may reference one declared before it)', async () => {
      const result = await run(['schema', 'apply', '--project', projectId, path.join(dataDir, 'schema-1.json')]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      const plan = result.stdout.indexOf('create table pets');
      const applied = result.stdout.indexOf('Applied');
      assert.ok(plan >= 0 && applied > plan, `the plan comes before "Applied":\n${result.stdout}`);
      assert.deepEqual(await tableNames(), ['owners', 'pets']);
    });

    it('a destructive plan needs --allow-destructive; without it nothing changes (exit 1)', async () => {
      const file = writeSchema('schema-2.json', {
        tables: { pets: { columns: [{ name: 'owner', type: 'text' }] }, extra: { columns: [] } },
      });
      const refused = await run(['schema', 'apply', '--project', projectId, file]);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stdout, /drop column vaccinated/);
      assert.match(refused.stderr, /--allow-destructive/);
      assert.deepEqual(await tableNames(), ['owners', 'pets'], 'not even the safe table was added');
      const allowed = await run(['schema', 'apply', '--project', projectId, file, '--allow-destructive', '--json']);
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.deepEqual(
        JSON.parse(allowed.stdout).plan.map((p: { table: string }) => p.table),
        ['pets', 'extra'],
      );
      assert.deepEqual(await tableNames(), ['extra', 'owners', 'pets']);
    });

    it('schema apply declares search columns and indexes the rows already there', async () => {
      const file = writeSchema('schema-3.json', {
        tables: { pets: { columns: [{ name: 'owner', type: 'text' }], search: ['owner'] }, extra: { columns: [] } },
      });
      const result = await run(['schema', 'apply', '--project', projectId, file]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /search columns owner/);
      const db = new Database(path.join(dataDir, 'projects', `${projectId}.db`), { readonly: true });
      try {
        const stored = db.prepare("SELECT definition FROM _rb_tables WHERE name = 'pets'").pluck().get() as string;
        assert.deepEqual(JSON.parse(stored).search, ['owner']);
        assert.equal(db.prepare('SELECT count(*) FROM "_rb_search_pets"').pluck().get(), 0);
      } finally {
        db.close();
      }
    });

    it('a file that is not a schema exits 2', async () => {
      const file = writeSchema('not-a-schema.json', { pets: {} });
      assert.equal((await run(['schema', 'apply', '--project', projectId, file])).code, 2);
    });

    it('projects delete ID removes the project and its file', async () => {
      const result = await run(['projects', 'delete', projectId]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(existsSync(path.join(dataDir, 'projects', `${projectId}.db`)), false);
      assert.deepEqual(await listed(), []);
      const again = await run(['projects', 'delete', projectId, '--json']);
      assert.equal(again.code, 1);
      assert.equal(JSON.parse(again.stderr).error.code, 'PROJECT_NOT_FOUND');
    });
  });
});
