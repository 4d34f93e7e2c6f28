/**
 * Moving a project between engines with the CLI (issue 4): a project built over HTTP on
 * SQLite is exported, imported into PostgreSQL, exported again and imported into a fresh
 * SQLite folder, and every step serves the same schema, rows, users (their passwords still
 * work), settings, keys, sessions (with their spent refresh tokens, so a replay is still caught
 * as reuse) and outbox. Also: a copy under a new id gets new keys and no sessions, and a
 * truncated archive, an edited row that does not fit its column, or a taken id imports nothing.
 * @engine postgres — it needs both engines, so it runs in the PostgreSQL pass.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PASSWORD, signUp } from '../helpers/auth-fixtures.js';
import { projectStorageExists } from '../helpers/storage-inspect.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where a server or the CLI keeps its data: a SQLite folder or a PostgreSQL database. */
type Storage = { readonly DATA_DIR: string; readonly DATABASE_URL: string };

function rowbase(args: string[], storage: Storage): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', ...args, '--json'],
      { env: { ...process.env, ...storage, LOG_LEVEL: 'warn' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Everything a client can see of the project, for comparing one storage with another. */
async function snapshot(server: TestServer, project: TestProject) {
  const get = async (route: string) => {
    const response = await server.request('GET', `/p/${project.id}${route}`, { headers: project.admin });
    assert.equal(response.status, 200, `${route}: ${response.text}`);
    return response.body;
  };
  const tables = (await get('/v1/tables')).data;
  const rows: Record<string, unknown> = {};
  for (const table of tables) rows[table.name] = (await get(`/api/${table.name}?limit=1000&sort=id`)).data;
  return {
    tables,
    rows,
    settings: (await get('/v1/settings')).data,
    emails: (await get('/v1/emails?limit=1000')).data,
  };
}

describe('rowbase export / import between SQLite and PostgreSQL', () => {
  const dirs: string[] = [];
  const databases: TestDatabase[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rowbase-move-'));
    dirs.push(dir);
    return dir;
  };
  const sqliteAt = (dir: string): Storage => ({ DATA_DIR: dir, DATABASE_URL: '' });
  const freshPostgres = async (): Promise<Storage> => {
    const database = await createTestDatabase();
    databases.push(database);
    return { DATA_DIR: tempDir(), DATABASE_URL: database.url };
  };
  const serve = (storage: Storage) =>
    startTestServer({ DATABASE_URL: storage.DATABASE_URL }, { dataDir: storage.DATA_DIR });

  let source: Storage;
  let project: TestProject;
  let expected: Awaited<ReturnType<typeof snapshot>>;
  let user: { token: string; refresh_token: string };
  /** A refresh token of Ada's session spent two rotations before the export (beyond the grace of the previous one). */
  let spentRefreshToken: string;
  /** Ada's sessions as GET /auth/sessions shows them before the move (id, created_at, user_agent). */
  let sessions: unknown[];
  const sessionsOf = async (server: TestServer) => {
    const response = await server.request('GET', `/p/${project.id}/auth/sessions`, {
      headers: { authorization: `Bearer ${user.token}`, 'user-agent': 'rowbase-move-test/1.0' },
    });
    assert.equal(response.status, 200, response.text);
    return response.body.data.map(({ id, created_at, user_agent }: Record<string, unknown>) => ({
      id,
      created_at,
      user_agent,
    }));
  };
  let archive: string;

  before(async () => {
    source = sqliteAt(tempDir());
    const server = await serve(source);
    try {
      project = await createProject(server, 'moving');
      await putTable(server, project, 'users', {
        columns: [{ name: 'name', type: 'text' }],
        auth_table: true,
        verify_email: true,
      });
      await putTable(server, project, 'notes', {
        columns: [
          { name: 'title', type: 'text', required: true, unique: true },
          { name: 'n', type: 'integer' },
          { name: 'x', type: 'number' },
          { name: 'done', type: 'boolean', default: false },
          { name: 'due', type: 'timestamp' },
          { name: 'meta', type: 'json' },
          { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
          { name: 'parent', type: 'text', references: { table: 'notes', on_delete: 'set_null' } },
        ],
        indexes: [['owner', 'due']],
        rules: {
          list: 'owner = @request.auth.id',
          view: 'owner = @request.auth.id',
          create: '',
          update: null,
          delete: null,
        },
      });
      const patched = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
        headers: project.admin,
        body: {
          allowed_redirect_origins: ['https://app.example.com'],
          access_token_ttl: 900,
          refresh_token_rotation: true,
          data_rate_limits: { reads_per_minute: 100_000, writes_per_minute: 50_000, per: 'caller' },
        },
      });
      assert.equal(patched.status, 200, patched.text);
      user = await signUp(server, project, 'ada@example.com', { name: 'Ada Lovelace' });
      spentRefreshToken = user.refresh_token;
      for (const _ of [1, 2]) {
        const rotated = await server.request('POST', `/p/${project.id}/auth/refresh`, {
          body: { refresh_token: user.refresh_token },
        });
        assert.equal(rotated.status, 200, rotated.text);
        assert.notEqual(rotated.body.refresh_token, user.refresh_token, 'rotation is on');
        user = { ...user, refresh_token: rotated.body.refresh_token };
      }
      await signUp(server, project, 'second@example.com', { name: '日本語 🦀' });
      const owner = (
        await server.request('GET', `/p/${project.id}/auth/me`, { headers: { authorization: `Bearer ${user.token}` } })
      ).body.user.id;
      // The child comes first and points at its parent: the import must load rows in any order.
      const child = { id: 'a-child', title: 'child', parent: 'z-parent', owner };
      const parent = {
        id: 'z-parent',
        title: 'parent "quoted" \\ é',
        n: Number.MAX_SAFE_INTEGER,
        x: -2.5e-300,
        done: true,
        due: '0000-01-01T00:00:00.000Z',
        meta: { b: [1, null, 'x'], a: { deep: true } },
        owner,
      };
      const bulk = await server.request('POST', `/p/${project.id}/api/notes/bulk`, {
        headers: project.admin,
        body: [parent, child, { title: 'nulls', n: null, meta: null }],
      });
      assert.equal(bulk.status, 201, bulk.text);
      expected = await snapshot(server, project);
      sessions = await sessionsOf(server);
      assert.equal(sessions.length, 1);
      assert.ok((sessions[0] as { user_agent: unknown }).user_agent, 'the session has a user agent to move');
      assert.equal(expected.emails.length, 2, 'two verification mails in the outbox');
    } finally {
      await server.close();
    }
  });

  after(async () => {
    for (const database of databases) await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a server on `storage` and checks it serves exactly what the source served. */
  const assertSame = async (storage: Storage) => {
    const server = await serve(storage);
    try {
      assert.deepEqual(await snapshot(server, project), expected);
      const login = await server.request('POST', `/p/${project.id}/auth/login`, {
        body: { email: 'ada@example.com', password: PASSWORD },
      });
      assert.equal(login.status, 200, `the password hash moved: ${login.text}`);
      const me = await server.request('GET', `/p/${project.id}/auth/me`, {
        headers: { authorization: `Bearer ${user.token}` },
      });
      assert.equal(me.status, 200, `an access token issued before the move still works: ${me.text}`);
      const listed = await server.request('GET', `/p/${project.id}/api/notes`, {
        headers: { authorization: `Bearer ${user.token}` },
      });
      assert.equal(listed.body.meta.total, 2, 'rules still apply');
      const refreshed = await server.request('POST', `/p/${project.id}/auth/refresh`, {
        body: { refresh_token: user.refresh_token },
      });
      assert.equal(refreshed.status, 200, `the session moved: ${refreshed.text}`);
      // The login above started a second session; the one from before the move keeps its id, start and user agent.
      const moved = (await sessionsOf(server)).filter(
        (session: { id: unknown }) => session.id === (sessions[0] as { id: unknown }).id,
      );
      assert.deepEqual(moved, sessions, 'sessions keep their id, start and user agent');
      // Last: reuse detection revokes the session.
      const replayed = await server.request('POST', `/p/${project.id}/auth/refresh`, {
        body: { refresh_token: spentRefreshToken },
      });
      assert.equal(replayed.status, 401, replayed.text);
      assert.equal(
        replayed.body.error.code,
        'AUTH_REFRESH_TOKEN_REUSED',
        'the spent refresh tokens moved with the session',
      );
    } finally {
      await server.close();
    }
  };

  it('SQLite → file: export writes an owner-only archive', async () => {
    archive = path.join(tempDir(), 'moving.rowbase');
    const run = await rowbase(['export', '--project', project.id, archive], source);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).counts['rows:notes'], 3);
    assert.equal(statSync(archive).mode & 0o777, 0o600);
  });

  let postgres: Storage;
  let second: string;
  it('file → PostgreSQL: exported again before any use, the archive is the same record for record', async () => {
    postgres = await freshPostgres();
    const run = await rowbase(['import', archive], postgres);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).kept_keys, true);
    second = path.join(tempDir(), 'moving-again.rowbase');
    const exported = await rowbase(['export', '--project', project.id, second], postgres);
    assert.equal(exported.code, 0, exported.stderr);
    const records = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((r) => r.kind !== 'header');
    assert.deepEqual(records(second), records(archive), 'the same records from either engine');
  });

  it('on PostgreSQL the project, its users, keys and sessions serve as before', async () => {
    await assertSame(postgres);
  });

  it('PostgreSQL → file → a fresh SQLite folder: still the same', async () => {
    const back = sqliteAt(tempDir());
    const imported = await rowbase(['import', second], back);
    assert.equal(imported.code, 0, imported.stderr);
    await assertSame(back);
  });

  it('--project NEW_ID imports a copy: same data, new keys, no sessions', async () => {
    const run = await rowbase(['import', archive, '--project', 'moving-copy'], postgres);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.kept_keys, false);
    assert.match(result.admin_key, /^sk_/);
    const server = await serve(postgres);
    try {
      const copy = { ...project, id: 'moving-copy', admin: { 'x-admin-key': result.admin_key } };
      assert.deepEqual((await snapshot(server, copy)).rows, expected.rows);
      assert.equal(
        (await server.request('GET', '/p/moving-copy/v1/tables', { headers: project.admin })).status,
        401,
        "the original's key does not open the copy",
      );
      assert.equal(
        (await server.request('POST', '/p/moving-copy/auth/refresh', { body: { refresh_token: user.refresh_token } }))
          .status,
        401,
        'sessions stay with the original',
      );
      assert.equal(
        (
          await server.request('POST', '/p/moving-copy/auth/login', {
            body: { email: 'ada@example.com', password: PASSWORD },
          })
        ).status,
        200,
      );
    } finally {
      await server.close();
    }
  });

  const refusals: [string, (file: string) => string, string][] = [
    [
      'a truncated archive',
      (file) => readFileSync(file, 'utf8').split('\n').slice(0, -3).join('\n'),
      'VALIDATION_FAILED',
    ],
    [
      'an archive with a line that is not JSON',
      (file) => readFileSync(file, 'utf8').replace('\n', '\n{oops\n'),
      'VALIDATION_FAILED',
    ],
    ['an id that is taken', (file) => readFileSync(file, 'utf8'), 'PROJECT_EXISTS'],
  ];
  // An archive edited so that one row no longer fits: the import names the table, the row and the column.
  const badRows: [string, (text: string) => string, RegExp][] = [
    [
      'a required column set to null',
      (text) => text.replace('"title":"child"', '"title":null'),
      /table "notes", row \d+ \(id "a-child"\), column "title": is required/,
    ],
    [
      'an integer of 1e400',
      (text) => text.replace(`"n":${Number.MAX_SAFE_INTEGER}`, '"n":1e400'),
      /table "notes", row \d+ \(id "z-parent"\), column "n": must be a whole number within ±\(2\^53-1\)/,
    ],
    [
      'a duplicate unique value',
      (text) => text.replace('"title":"child"', '"title":"nulls"'),
      /rows of table "notes": two rows have the same value in (column "title"|a column), which is unique/,
    ],
  ];
  for (const [label, edit, message] of badRows)
    for (const engine of ['SQLite', 'PostgreSQL'] as const) {
      it(`into ${engine}: ${label} → exit 1, VALIDATION_FAILED naming table, row, column; none imported`, async () => {
        const text = readFileSync(archive, 'utf8');
        const broken = path.join(tempDir(), 'bad-row.rowbase');
        writeFileSync(broken, edit(text));
        assert.notEqual(edit(text), text, 'the edit applies');
        const target = engine === 'PostgreSQL' ? await freshPostgres() : sqliteAt(tempDir());
        const run = await rowbase(['import', broken], target);
        assert.equal(run.code, 1, run.stdout);
        const { error } = JSON.parse(run.stderr);
        assert.equal(error.code, 'VALIDATION_FAILED', run.stderr);
        assert.match(error.message, message);
        assert.doesNotMatch(error.message, /SQLITE|constraint|violates/i, 'no driver message');
        assert.equal(
          await projectStorageExists({ databaseUrl: target.DATABASE_URL, dataDir: target.DATA_DIR }, project.id),
          false,
          'nothing was left behind',
        );
      });
    }
  for (const [label, make, code] of refusals) {
    it(`${label} → exit 1 with ${code}; nothing is imported`, async () => {
      const broken = path.join(tempDir(), 'broken.rowbase');
      writeFileSync(broken, make(archive));
      const target = code === 'PROJECT_EXISTS' ? postgres : await freshPostgres();
      const run = await rowbase(['import', broken], target);
      assert.equal(run.code, 1, run.stdout);
      assert.equal(JSON.parse(run.stderr).error.code, code, run.stderr);
      if (code === 'PROJECT_EXISTS') return;
      assert.equal(
        await projectStorageExists({ databaseUrl: target.DATABASE_URL, dataDir: target.DATA_DIR }, project.id),
        false,
        'no schema was left behind',
      );
    });
  }
});
