/**
 * Newcomer papercuts of the CLI, each run as a real process (`node --import tsx src/main.ts`):
 * short platform keys refused at start, unknown flags refused with the closest known flag.
 * @engine sqlite — what is checked here is argument and setting parsing before any storage is
 * opened (plus one start over a data folder); the PostgreSQL pass would repeat it unchanged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, PROCESS_PLATFORM_KEY, startServerProcess } from '../helpers/server-process.js';
import { isPostgresReachable, testDatabaseUrl, withDatabase } from '../helpers/test-database.js';

const postgresReachable = await isPostgresReachable();

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('CLI papercuts', () => {
  let dataDir: string;
  const run = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', ...args],
        {
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            LOG_LEVEL: 'warn',
            PLATFORM_KEY: PROCESS_PLATFORM_KEY,
            PORT: '0',
            ...env,
          },
          timeout: 30_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });

  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-cli-papercuts-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('PLATFORM_KEY length', () => {
    it('PLATFORM_KEY=short: serve refuses to start (exit 2), says 32 characters and how to make a key', async () => {
      const result = await run(['serve'], { PLATFORM_KEY: 'short' });
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /PLATFORM_KEY must be at least 32 characters; this one has 5/);
      assert.match(result.stderr, /randomBytes/, 'says how to generate one');
      assert.doesNotMatch(result.stdout, /listening/);
    });

    it('--platform-key of 31 characters is refused the same way, with --json as an error envelope', async () => {
      const result = await run(['serve', '--platform-key', 'x'.repeat(31), '--json']);
      assert.equal(result.code, 2);
      const error = JSON.parse(result.stderr).error;
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, /this one has 31/);
      assert.doesNotMatch(result.stderr, /x{31}/, 'the key itself is not echoed');
    });

    it('a key of exactly 32 characters starts the server, which accepts it', async () => {
      const key = 'k'.repeat(32);
      const server = await startServerProcess(dataDir, { PLATFORM_KEY: key });
      try {
        const response = await fetch(`${server.url}/v1/projects`, { headers: { 'x-platform-key': key } });
        assert.equal(response.status, 200);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  });

  describe('unknown flags are refused, naming the closest known flag', () => {
    const scenarios: { name: string; args: string[]; flag: string; closest?: string; json?: boolean }[] = [
      { name: 'serve --prot 1 (a typo of --port)', args: ['serve', '--prot', '1'], flag: '--prot', closest: '--port' },
      {
        name: 'serve --data-dri (value written with =)',
        args: ['serve', '--data-dri=/tmp/x'],
        flag: '--data-dri',
        closest: '--data-dir',
      },
      { name: 'serve -p 9000 (no short flags but -h)', args: ['serve', '-p', '9000'], flag: '-p', closest: '--port' },
      {
        name: 'projects create --nmae demo',
        args: ['projects', 'create', '--nmae', 'demo'],
        flag: '--nmae',
        closest: '--name',
      },
      {
        name: 'projects list --jsn (at the end, no value)',
        args: ['projects', 'list', '--jsn'],
        flag: '--jsn',
        closest: '--json',
      },
      {
        name: 'schema apply --dryrun',
        args: ['schema', 'apply', '--project', 'demo', 'schema.json', '--dryrun'],
        flag: '--dryrun',
        closest: '--dry-run',
      },
      {
        name: 'export --projetc demo file',
        args: ['export', '--projetc', 'demo', 'file.rowbase'],
        flag: '--projetc',
        closest: '--project',
      },
      {
        name: 'import --name (a flag of another command)',
        args: ['import', 'file.rowbase', '--name', 'x'],
        flag: '--name',
      },
      {
        name: 'projects create --id x --colour red, with --json: the envelope on stderr',
        args: ['projects', 'create', '--id', 'x', '--colour', 'red', '--json'],
        flag: '--colour',
        json: true,
      },
    ];
    for (const scenario of scenarios) {
      it(`${scenario.name} → exit 2, nothing done`, async () => {
        const result = await run(scenario.args);
        assert.equal(result.code, 2, `${result.stdout}\n${result.stderr}`);
        assert.equal(result.stdout, '', 'nothing ran');
        const text = scenario.json
          ? JSON.parse(result.stderr).error
          : { code: 'CLI_USAGE', message: result.stderr, suggestion: result.stderr };
        assert.equal(text.code, 'CLI_USAGE');
        assert.ok(
          text.message.includes(`unknown flag ${scenario.flag} for rowbase ${scenario.args[0]}`),
          result.stderr,
        );
        if (scenario.closest) assert.ok(text.suggestion.includes(`Did you mean ${scenario.closest}?`), result.stderr);
        else assert.doesNotMatch(text.suggestion, /Did you mean/);
        assert.ok(text.suggestion.includes(`rowbase ${scenario.args[0]} --help`), result.stderr);
      });
    }

    it('every documented flag is accepted: serve --help lists settings; they work on every command', async () => {
      const [help, list] = await Promise.all([
        run(['serve', '--port', '0', '--help']),
        run(['projects', 'list', '--data-dir', dataDir, '--json']),
      ]);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /--max-open-projects/);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(JSON.parse(list.stdout).data, []);
    });

    it('a value flag at the end without its value: exit 2, "--port needs a value"', async () => {
      const result = await run(['serve', '--port']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--port needs a value/);
    });
  });

  describe('projects create --json', () => {
    it('prints {data: {id, name, admin_key, publishable_key, created_at}} like projects list --json', async () => {
      const result = await run(['projects', 'create', '--name', 'Demo', '--id', 'json-demo', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const body = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(body), ['data']);
      assert.deepEqual(Object.keys(body.data).sort(), ['admin_key', 'created_at', 'id', 'name', 'publishable_key']);
      assert.equal(body.data.id, 'json-demo');
      assert.match(body.data.admin_key, /^sk_[0-9A-Za-z]{32,}$/);
      const list = JSON.parse((await run(['projects', 'list', '--json'])).stdout);
      assert.deepEqual(
        list.data.map((p: { id: string }) => p.id),
        ['json-demo'],
      );
    });
  });

  describe('PostgreSQL start-up failures say what to do', () => {
    it('a closed port: names the address and DATABASE_URL, says to start PostgreSQL or fix host and port', async () => {
      const result = await run(['serve'], {
        DATABASE_URL: `postgres://rowbase:hunter2-secret@127.0.0.1:${await freePort()}/app`,
      });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(
          String.raw`^error: Nothing accepts connections at 127\.0\.0\.1:\d+ \(DATABASE_URL\)\n` +
            'Start PostgreSQL there, or fix the host and port in DATABASE_URL',
        ),
      );
      assert.ok(!`${result.stdout}${result.stderr}`.includes('hunter2-secret'), 'the password is never printed');
    });

    it('a database that does not exist: names it and says how to create it', {
      skip: !postgresReachable && 'no PostgreSQL server',
    }, async () => {
      const result = await run(['serve'], {
        DATABASE_URL: withDatabase(testDatabaseUrl(), 'rowbase_no_such_database'),
      });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /has no database "rowbase_no_such_database" \(DATABASE_URL\)\nCreate it \(createdb .*rowbase_no_such_database/,
      );
    });

    it('--json prints the error envelope with STORAGE_UNAVAILABLE and the suggestion', async () => {
      const result = await run(['projects', 'list', '--json'], {
        DATABASE_URL: `postgres://rowbase@127.0.0.1:${await freePort()}/app`,
      });
      assert.notEqual(result.code, 0);
      const { error } = JSON.parse(result.stderr);
      assert.equal(error.code, 'STORAGE_UNAVAILABLE');
      assert.match(error.message, /Nothing accepts connections/);
      assert.match(error.suggestion, /Start PostgreSQL there/);
    });
  });
});
