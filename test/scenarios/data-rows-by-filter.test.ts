/**
 * Update and delete by filter (contract §18): PATCH|DELETE /p/{id}/api/{table}?filter=... →
 * 200 { data: { count } }. The caller matrix (anonymous, expired token, another project's keys,
 * pk_, owner, other user, admin) with rules that read @request.auth, @request.body and a
 * relation path; the required filter, the 10,000-row bound, dry_run, body validation as PATCH,
 * one transaction, cascades (a table that cascades into itself too), users deleted with their
 * sessions, one realtime event per touched row (the record as GET shows it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { bearer, createAuthProject, jwtPayload, jwtSecretOf, signUp } from '../helpers/auth-fixtures.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('update and delete by filter', () => {
  let server: TestServer;
  let project: TestProject;
  let ada: { id: string; headers: Record<string, string> };
  let bob: { id: string; headers: Record<string, string> };
  let adaToken: string;
  const streams: SseStream[] = [];
  const api = (table: string, query = '') => `/p/${project.id}/api/${table}${query}`;
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    server.request(method, path, { headers, ...(body !== undefined && { body }) });
  const seed = async (table: string, rows: Record<string, unknown>[]) => {
    const response = await call('POST', api(table, '/bulk'), project.admin, rows);
    assert.equal(response.status, 201, response.text);
    return response.body.data as Record<string, unknown>[];
  };
  /** Every row of `table` (admin), in creation order. */
  const all = async (table: string) => {
    const response = await call('GET', api(table, '?limit=1000'), project.admin);
    assert.equal(response.status, 200, response.text);
    return response.body.data as Record<string, unknown>[];
  };
  const q = (filter: string, extra = '') => `?filter=${encodeURIComponent(filter)}${extra}`;

  before(async () => {
    server = await startTestServer();
    project = await createAuthProject(server, {
      columns: [{ name: 'name', type: 'text' }],
      rules: { list: '', view: '', update: 'id = @request.auth.id', delete: null },
    });
    const a = await signUp(server, project, 'ada@example.com', { name: 'Ada' });
    const b = await signUp(server, project, 'bob@example.com', { name: 'Bob' });
    ada = { id: a.user.id, headers: bearer(a.token) };
    adaToken = a.token;
    bob = { id: b.user.id, headers: bearer(b.token) };
    // The rule reads the caller and the body: nobody but the admin may set locked.
    await putTable(server, project, 'notes', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'done', type: 'boolean', default: false },
        { name: 'locked', type: 'boolean', default: false },
        { name: 'owner', type: 'text' },
        { name: 'code', type: 'text', unique: true },
      ],
      rules: {
        list: '',
        view: '',
        create: '',
        update: 'owner = @request.auth.id && locked = false && @request.body.locked != true',
        delete: 'owner = @request.auth.id && locked = false',
      },
    });
    // A relation path in the rule: items of a board its owner may change.
    await putTable(server, project, 'boards', {
      columns: [
        { name: 'name', type: 'text' },
        { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      ],
      rules: { list: '', view: '', create: '', update: '', delete: 'owner = @request.auth.id' },
    });
    await putTable(server, project, 'items', {
      columns: [
        { name: 'label', type: 'text' },
        { name: 'board', type: 'text', references: { table: 'boards', on_delete: 'cascade' } },
      ],
      rules: { list: '', view: '', create: '', update: 'board.owner = @request.auth.id', delete: '' },
    });
    await putTable(server, project, 'pins', {
      columns: [{ name: 'board', type: 'text', references: { table: 'boards', on_delete: 'set_null' } }],
      rules: { list: '', view: '' },
    });
    await putTable(server, project, 'locks', {
      columns: [{ name: 'item', type: 'text', references: { table: 'items', on_delete: 'restrict' } }],
      rules: { list: '', view: '' },
    });
    await putTable(server, project, 'sealed', { columns: [{ name: 'title', type: 'text' }] });
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await server.close();
  });

  describe('the caller matrix', () => {
    before(async () => {
      await seed('notes', [
        { title: 'a1', owner: ada.id },
        { title: 'a2', owner: ada.id },
        { title: 'a3', owner: ada.id, locked: true },
        { title: 'b1', owner: bob.id },
      ]);
    });

    it('no credentials → 401 AUTH_REQUIRED on both methods, nothing changed', async () => {
      assertError(await call('PATCH', api('notes', q('true')), {}, { done: true }), 401, 'AUTH_REQUIRED');
      assertError(await call('DELETE', api('notes', q('true')), {}), 401, 'AUTH_REQUIRED');
      assert.equal((await all('notes')).length, 4);
    });

    it('an expired token of the owner → 401 AUTH_TOKEN_EXPIRED on both methods, nothing changed', async () => {
      // Ada's own claims, signed with the project's secret, an hour past their expiry.
      const claims = jwtPayload(adaToken);
      const past = Math.floor(Date.now() / 1000) - 3600;
      const key = new TextEncoder().encode(await jwtSecretOf(server, project));
      const expired = await new SignJWT({ ...claims, iat: past - 60, exp: past })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(key);
      assertError(
        await call('PATCH', api('notes', q('true')), bearer(expired), { done: true }),
        401,
        'AUTH_TOKEN_EXPIRED',
      );
      assertError(await call('DELETE', api('notes', q('true')), bearer(expired)), 401, 'AUTH_TOKEN_EXPIRED');
      assert.ok((await all('notes')).every((row) => row.done === false));
      assert.equal((await all('notes')).length, 4);
    });

    it("another project's keys → 401 AUTH_INVALID_KEY on both methods, nothing changed", async () => {
      const other = await createAuthProject(server);
      for (const headers of [other.anon, other.admin]) {
        assertError(await call('PATCH', api('notes', q('true')), headers, { done: true }), 401, 'AUTH_INVALID_KEY');
        assertError(await call('DELETE', api('notes', q('true')), headers), 401, 'AUTH_INVALID_KEY');
      }
      assert.ok((await all('notes')).every((row) => row.done === false));
      assert.equal((await all('notes')).length, 4);
    });

    it('pk_ key: the rule needs a user, so no row is touched → 200 count 0', async () => {
      const patched = await call('PATCH', api('notes', q('true')), project.anon, { done: true });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body, { data: { count: 0 } });
      const deleted = await call('DELETE', api('notes', q('true')), project.anon);
      assert.deepEqual(deleted.body, { data: { count: 0 } });
      assert.ok((await all('notes')).every((row) => row.done === false));
    });

    it('owner: only her own unlocked rows are changed and counted, the rest keep their values', async () => {
      const response = await call('PATCH', api('notes', q('title ~ "1" || title ~ "a"')), ada.headers, { done: true });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { data: { count: 2 } });
      const done = Object.fromEntries((await all('notes')).map((row) => [row.title, row.done]));
      assert.deepEqual(done, { a1: true, a2: true, a3: false, b1: false });
    });

    it('another user: the owner`s rows are neither changed nor counted', async () => {
      const response = await call('PATCH', api('notes', q(`owner = "${ada.id}"`)), bob.headers, {
        title: 'bob was here',
      });
      assert.deepEqual(response.body, { data: { count: 0 } });
      const deleted = await call('DELETE', api('notes', q(`owner = "${ada.id}"`)), bob.headers);
      assert.deepEqual(deleted.body, { data: { count: 0 } });
      assert.ok((await all('notes')).every((row) => row.title !== 'bob was here'));
      assert.equal((await all('notes')).length, 4);
    });

    it('a rule reading @request.body: a body setting locked=true touches no row of the owner', async () => {
      const response = await call('PATCH', api('notes', q('true')), ada.headers, { locked: true });
      assert.deepEqual(response.body, { data: { count: 0 } });
      assert.equal((await all('notes')).filter((row) => row.locked === true).length, 1);
    });

    it('admin key: every matching row, rules not evaluated', async () => {
      const response = await call('PATCH', api('notes', q('done = false')), project.admin, { title: 'reset' });
      assert.deepEqual(response.body, { data: { count: 2 } });
      const titles = (await all('notes')).map((row) => row.title);
      assert.deepEqual(titles, ['a1', 'a2', 'reset', 'reset']);
    });

    it('owner deletes her own unlocked rows; the locked one and the other user`s stay', async () => {
      const response = await call('DELETE', api('notes', q('true')), ada.headers);
      assert.deepEqual(response.body, { data: { count: 2 } });
      assert.deepEqual(
        (await all('notes')).map((row) => row.owner),
        [ada.id, bob.id],
      );
    });

    it('a locked (null) rule → 403 FORBIDDEN for the pk_ key and a user, nothing written', async () => {
      await seed('sealed', [{ title: 's' }]);
      for (const headers of [project.anon, ada.headers]) {
        assertError(await call('PATCH', api('sealed', q('true')), headers, { title: 'x' }), 403, 'FORBIDDEN');
        assertError(await call('DELETE', api('sealed', q('true')), headers), 403, 'FORBIDDEN');
      }
      assert.deepEqual(
        (await all('sealed')).map((row) => row.title),
        ['s'],
      );
    });
  });

  describe('a rule that follows a relation path', () => {
    before(async () => {
      const [adaBoard, bobBoard] = (
        await seed('boards', [
          { name: 'A', owner: ada.id },
          { name: 'B', owner: bob.id },
        ])
      ).map((row) => String(row.id));
      await seed('items', [
        { label: 'x', board: adaBoard },
        { label: 'y', board: adaBoard },
        { label: 'z', board: bobBoard },
      ]);
    });

    it('update: board.owner = @request.auth.id touches only the items of the caller`s boards', async () => {
      const response = await call('PATCH', api('items', q('true')), bob.headers, { label: 'mine' });
      assert.deepEqual(response.body, { data: { count: 1 } });
      assert.deepEqual(
        (await all('items')).map((row) => row.label),
        ['x', 'y', 'mine'],
      );
      const anon = await call('PATCH', api('items', q('true')), project.anon, { label: 'anon' });
      assert.deepEqual(anon.body, { data: { count: 0 } });
    });

    it('a caller`s filter may follow a path too', async () => {
      const response = await call('PATCH', api('items', q(`board.name = "A"`)), ada.headers, { label: 'ada' });
      assert.deepEqual(response.body, { data: { count: 2 } });
    });
  });

  describe('the filter and dry_run', () => {
    before(async () => {
      await seed('notes', [
        { title: 'f1', owner: 'x' },
        { title: 'f2', owner: 'x' },
      ]);
    });
    const cases = (): [string, string, string, RegExp][] => [
      ['no filter', '', 'VALIDATION_FILTER', /filter: required/],
      ['an empty filter', '?filter=', 'VALIDATION_FILTER', /filter: required/],
      ['a malformed filter', q('title = '), 'VALIDATION_FILTER', /character/],
      ['an unknown column', q('nope = 1'), 'VALIDATION_FILTER', /nope/],
      ['filter given twice', `${q('true')}&filter=true`, 'VALIDATION_FILTER', /twice|2 times/],
      ['dry_run neither true nor false', q('true', '&dry_run=yes'), 'VALIDATION_FILTER', /dry_run/],
      ['another parameter', q('true', '&limit=1'), 'VALIDATION_FILTER', /limit: not a parameter/],
      ['a shorthand filter', q('true', '&title=eq.f1'), 'VALIDATION_FILTER', /title: not a parameter/],
    ];
    it('every refused query → 400 with its code, on both methods, nothing written', async () => {
      for (const [label, query, code, message] of cases()) {
        const patched = await call('PATCH', api('notes', query), project.admin, { done: true });
        assertError(patched, 400, code);
        assertMessageIncludes(patched, message);
        const deleted = await call('DELETE', api('notes', query), project.admin);
        assertError(deleted, 400, code);
        assert.ok(label);
      }
      const kept = (await all('notes')).filter((row) => row.owner === 'x');
      assert.deepEqual(
        kept.map((row) => [row.title, row.done]),
        [
          ['f1', false],
          ['f2', false],
        ],
      );
    });

    it('dry_run=true answers the count and writes nothing', async () => {
      const before = await all('notes');
      const patched = await call('PATCH', api('notes', q('owner = "x"', '&dry_run=true')), project.admin, {
        title: 'dry',
      });
      assert.deepEqual(patched.body, { data: { count: 2 } });
      const deleted = await call('DELETE', api('notes', q('true', '&dry_run=true')), project.admin);
      assert.deepEqual(deleted.body, { data: { count: before.length } });
      assert.deepEqual(await all('notes'), before);
    });

    it('dry_run=true validates the body as the real request does', async () => {
      const response = await call('PATCH', api('notes', q('true', '&dry_run=true')), project.admin, { nope: 1 });
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
    });
  });

  describe('the body is validated as a PATCH of one row', () => {
    const refused = (): [string, Record<string, string> | 'admin', string, unknown, number, string][] => [
      ['id', 'admin', 'notes', { id: 'x' }, 400, 'VALIDATION_FAILED'],
      ['created_at', 'admin', 'notes', { created_at: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['updated_at', 'admin', 'notes', { updated_at: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['an unknown column', 'admin', 'notes', { titel: 'x' }, 400, 'VALIDATION_UNKNOWN_COLUMN'],
      ['a wrong type', 'admin', 'notes', { done: 'yes' }, 400, 'VALIDATION_FAILED'],
      ['not an object', 'admin', 'notes', [{ done: true }], 400, 'VALIDATION_FAILED'],
      ['password (admin)', 'admin', 'users', { password: 'a new password 1' }, 400, 'VALIDATION_FAILED'],
      ['email (admin)', 'admin', 'users', { email: 'same@example.com' }, 400, 'VALIDATION_FAILED'],
      ['password_version', 'admin', 'users', { password_version: 9 }, 400, 'VALIDATION_UNKNOWN_COLUMN'],
    ];
    it('each refused body → its code, and no row changed', async () => {
      const users = await all('users');
      const notes = await all('notes');
      for (const [label, who, table, body, status, code] of refused()) {
        const response = await call('PATCH', api(table, q('true')), who === 'admin' ? project.admin : who, body);
        assert.equal(response.status, status, `${label}: ${response.text}`);
        assertError(response, status, code);
      }
      assert.deepEqual(await all('users'), users);
      assert.deepEqual(await all('notes'), notes);
    });

    it('password, email or email_verified by a user → 403 FORBIDDEN, as PATCH of one row answers', async () => {
      for (const body of [{ password: 'a new password 1' }, { email: 'x@example.com' }, { email_verified: true }]) {
        assertError(await call('PATCH', api('users', q('true')), ada.headers, body), 403, 'FORBIDDEN');
      }
    });

    it('a user changes her own row of the auth table only', async () => {
      const response = await call('PATCH', api('users', q('true')), ada.headers, { name: 'Ada L.' });
      assert.deepEqual(response.body, { data: { count: 1 } });
      const names = (await all('users')).map((row) => row.name);
      assert.deepEqual(names, ['Ada L.', 'Bob']);
    });

    it('a unique value set on two rows → 409 CONFLICT_UNIQUE, neither changed (one transaction)', async () => {
      const response = await call('PATCH', api('notes', q('owner = "x"')), project.admin, { code: 'same' });
      assertError(response, 409, 'CONFLICT_UNIQUE');
      assert.ok((await all('notes')).every((row) => row.code === null));
    });
  });

  describe('deletes and references', () => {
    it('cascade and set_null behave as deleting each row; a restrict → 409 and nothing deleted', async () => {
      const [kept, gone] = (
        await seed('boards', [
          { name: 'keep', owner: ada.id },
          { name: 'drop', owner: ada.id },
        ])
      ).map((row) => String(row.id));
      const [locked] = await seed('items', [
        { label: 'locked', board: gone },
        { label: 'loose', board: gone },
      ]);
      await seed('pins', [{ board: gone }, { board: kept }]);
      const [lock] = await seed('locks', [{ item: locked!.id }]);

      const refused = await call('DELETE', api('boards', q('name = "drop"')), ada.headers);
      assertError(refused, 409, 'CONFLICT_REFERENCE');
      assertMessageIncludes(refused, /locks/);
      assert.ok((await all('boards')).some((row) => row.id === gone));
      assert.equal((await all('items')).filter((row) => row.board === gone).length, 2);

      assert.equal((await call('DELETE', `/p/${project.id}/api/locks/${lock!.id}`, project.admin)).status, 204);
      const response = await call('DELETE', api('boards', q('name = "drop" || name = "keep"')), bob.headers);
      assert.deepEqual(response.body, { data: { count: 0 } }, 'the delete rule hides ada`s boards from bob');
      const deleted = await call('DELETE', api('boards', q('name = "drop"')), ada.headers);
      assert.deepEqual(deleted.body, { data: { count: 1 } });
      assert.equal((await all('items')).filter((row) => row.board === gone).length, 0, 'cascade');
      assert.deepEqual(
        (await all('pins')).map((row) => row.board),
        [null, kept],
        'set_null',
      );
    });
  });

  describe('a table that references itself', () => {
    it('rows the filter matches and a cascade also reaches are counted and sent once each', async () => {
      await putTable(server, project, 'nodes', {
        columns: [
          { name: 'label', type: 'text' },
          { name: 'parent', type: 'text', references: { table: 'nodes', on_delete: 'cascade' } },
        ],
        rules: { list: '', view: '', create: '', update: '', delete: '' },
      });
      const [root] = await seed('nodes', [{ label: 'tree root' }]);
      const [child] = await seed('nodes', [{ label: 'tree child', parent: root!.id }]);
      await seed('nodes', [{ label: 'tree leaf', parent: child!.id }, { label: 'other' }]);
      const stream = await openStream(server.url, project.id);
      streams.push(stream);
      const subscribed = await call('POST', `/p/${project.id}/realtime`, project.admin, {
        client_id: stream.clientId,
        subscriptions: ['nodes'],
      });
      assert.equal(subscribed.status, 200, subscribed.text);
      const deleted = await call('DELETE', api('nodes', q('label ~ "tree"')), project.admin);
      assert.deepEqual(deleted.body, { data: { count: 3 } }, deleted.text);
      const events = await stream.waitFor(3, (event) => event.json?.action === 'delete');
      assert.deepEqual(events.map((event) => event.json.record.label).sort(), ['tree child', 'tree leaf', 'tree root']);
      assert.deepEqual(
        (await all('nodes')).map((row) => row.label),
        ['other'],
      );
    });
  });

  describe('users deleted by filter', () => {
    it('each deleted user signs out everywhere, even if the id comes back; the others stay signed in', async () => {
      const carol = await signUp(server, project, 'carol@doomed.example', { name: 'Carol' });
      const dave = await signUp(server, project, 'dave@doomed.example', { name: 'Dave' });
      const me = (token: string) => call('GET', `/p/${project.id}/auth/me`, bearer(token));
      assert.equal((await me(carol.token)).status, 200);
      const refused = await call('DELETE', api('users', q('email ~ "doomed"')), ada.headers);
      assertError(refused, 403, 'FORBIDDEN');
      const deleted = await call('DELETE', api('users', q('email ~ "doomed"')), project.admin);
      assert.deepEqual(deleted.body, { data: { count: 2 } });
      for (const user of [carol, dave]) {
        assertError(await me(user.token), 401, 'AUTH_INVALID_TOKEN');
        const refreshed = await call(
          'POST',
          `/p/${project.id}/auth/refresh`,
          {},
          { refresh_token: user.refresh_token },
        );
        assert.equal(refreshed.status, 401, refreshed.text);
      }
      // The attack: the id comes back (an admin restores the account); the old sessions must not.
      const restored = await call('POST', api('users'), project.admin, {
        id: carol.user.id,
        email: 'carol@doomed.example',
        password: 'a brand new password 1',
      });
      assert.equal(restored.status, 201, restored.text);
      const resumed = await call('POST', `/p/${project.id}/auth/refresh`, {}, { refresh_token: carol.refresh_token });
      assert.equal(resumed.status, 401, resumed.text);
      assert.equal((await call('DELETE', api('users', `/${carol.user.id}`), project.admin)).status, 204);
      assert.equal((await call('GET', `/p/${project.id}/auth/me`, ada.headers)).status, 200);
      assert.deepEqual(
        (await all('users')).map((row) => row.email),
        ['ada@example.com', 'bob@example.com'],
      );
    });
  });

  describe('realtime', () => {
    it('one event per touched row, after commit, as single-row writes send them', async () => {
      const rows = await seed('notes', [
        { title: 'rt1', owner: 'rt' },
        { title: 'rt2', owner: 'rt' },
        { title: 'rt3', owner: 'other' },
      ]);
      const stream = await openStream(server.url, project.id);
      streams.push(stream);
      const subscribed = await call('POST', `/p/${project.id}/realtime`, project.admin, {
        client_id: stream.clientId,
        subscriptions: ['notes'],
      });
      assert.equal(subscribed.status, 200, subscribed.text);
      await call('PATCH', api('notes', q('owner = "rt"')), project.admin, { done: true });
      await call('DELETE', api('notes', q('owner = "rt"')), project.admin);
      // A refused write sends nothing; the barrier after it shows nothing was held back.
      await call('PATCH', api('notes', q('owner = "rt3"')), project.admin, { nope: 1 });
      await call('PATCH', api('notes', q('title = "rt3"')), project.admin, { title: 'barrier' });
      const events = await stream.before((event) => event.json?.record?.title === 'barrier');
      const seen = events.map((event) => `${event.json.action} ${event.json.record.title} ${event.json.record.done}`);
      // Updates first (their statement committed first); within one statement the engine picks the order.
      assert.deepEqual(seen.slice(0, 2).sort(), ['update rt1 true', 'update rt2 true']);
      assert.deepEqual(seen.slice(2).sort(), ['delete rt1 true', 'delete rt2 true']);
      assert.equal(seen.length, 4);
      assert.ok(events.every((event) => rows.some((row) => row.id === event.json.record.id)));
    });
    it("each event's record is the row as the API shows it, every column type (built by the database)", async () => {
      await putTable(server, project, 'kinds', {
        columns: [
          { name: 'grp', type: 'text' },
          { name: 't', type: 'text' },
          { name: 'i', type: 'integer' },
          { name: 'n', type: 'number' },
          { name: 'b', type: 'boolean' },
          { name: 'ts', type: 'timestamp' },
          { name: 'j', type: 'json' },
        ],
        rules: { list: '', view: '', create: '', update: '', delete: '' },
      });
      // Text to escape, whole and fractional numbers, the first and last years, nested json.
      await seed('kinds', [
        { grp: 'k', t: 'quote " back \\ line\nnew tab\t é 😀 \u0001', i: -9007199254740991, n: 1.5, b: true },
        { grp: 'k', t: "it's", i: 0, n: -0.25, b: false, ts: '0000-01-01T00:30:00Z', j: { a: [1, 'é', null] } },
        { grp: 'k', n: 1e21, ts: '9999-12-31T23:30:00.5Z', j: 'just text' },
        { grp: 'k', n: 3, ts: '2026-02-03T04:05:06.789Z', j: [true, { 'k"ey': 0.1 }] },
        { grp: 'other', t: 'untouched' },
      ]);
      const stream = await openStream(server.url, project.id);
      streams.push(stream);
      const subscribed = await call('POST', `/p/${project.id}/realtime`, project.admin, {
        client_id: stream.clientId,
        subscriptions: ['kinds'],
      });
      assert.equal(subscribed.status, 200, subscribed.text);
      const rowsOf = async (filter: string) =>
        ((await call('GET', api('kinds', q(filter, '&limit=100')), project.admin)).body.data as Row[]).sort(byId);
      type Row = Record<string, unknown>;
      const byId = (a: Row, b: Row) => String(a.id).localeCompare(String(b.id));

      const patched = await call('PATCH', api('kinds', q('grp = "k"')), project.admin, { b: null, j: { set: 'é"' } });
      assert.deepEqual(patched.body, { data: { count: 4 } });
      const updated = await rowsOf('grp = "k"');
      assert.equal(updated.length, 4);
      const updates = await stream.waitFor(4, (event) => event.json?.action === 'update');
      assert.deepEqual(updates.map((event) => event.json.record as Row).sort(byId), updated);

      const deleted = await call('DELETE', api('kinds', q('grp = "k"')), project.admin);
      assert.deepEqual(deleted.body, { data: { count: 4 } });
      const deletes = await stream.waitFor(4, (event) => event.json?.action === 'delete');
      assert.deepEqual(deletes.map((event) => event.json.record as Row).sort(byId), updated);
      assert.deepEqual(
        (await all('kinds')).map((row) => row.t),
        ['untouched'],
      );
      assert.equal(stream.received((event) => event.json?.record?.grp === 'other').length, 0);
    });
  });

  describe('the 10,000-row bound', () => {
    before(async () => {
      await putTable(server, project, 'many', {
        columns: [{ name: 'n', type: 'integer' }],
        rules: { list: '', view: '', update: '', delete: '' },
      });
      const rows = Array.from({ length: 10_001 }, (_, n) => ({ n }));
      await seed('many', rows.slice(0, 10_000));
      await seed('many', rows.slice(10_000));
    });
    const count = async (filter?: string) => {
      const response = await call('GET', api('many', filter ? `${q(filter)}&limit=0` : '?limit=0'), project.admin);
      return response.body.meta.total as number;
    };

    it('10,001 matching rows → 400 VALIDATION_FILTER and nothing written, dry run included', async () => {
      const patched = await call('PATCH', api('many', q('n >= 0')), project.anon, { n: -1 });
      assertError(patched, 400, 'VALIDATION_FILTER');
      assertMessageIncludes(patched, /10001 rows/);
      assertError(await call('DELETE', api('many', q('true')), project.anon), 400, 'VALIDATION_FILTER');
      assertError(
        await call('DELETE', api('many', q('true', '&dry_run=true')), project.admin),
        400,
        'VALIDATION_FILTER',
      );
      assert.equal(await count('n >= 0'), 10_001);
    });

    it('exactly 10,000 matching rows are updated, then deleted, in one request each', async () => {
      const patched = await call('PATCH', api('many', q('n > 0')), project.anon, { n: 0 });
      assert.deepEqual(patched.body, { data: { count: 10_000 } });
      assert.equal(await count('n = 0'), 10_001);
      const deleted = await call('DELETE', api('many', q('n = 0')), project.admin);
      assertError(deleted, 400, 'VALIDATION_FILTER');
      const some = await call('DELETE', api('many', q(`id != "${(await all('many'))[0]!.id}"`)), project.anon);
      assert.deepEqual(some.body, { data: { count: 10_000 } });
      assert.equal(await count(), 1);
    });
  });
});
