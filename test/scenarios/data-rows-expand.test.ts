/**
 * Expand on list and get (contract §13): forward paths up to 3 levels, reverse table(column)
 * (creation order, at most 100 per row), each expanded row under the caller's view/list rule
 * (null or left out when hidden), select applying to the top row only, bad input refused, and
 * no N+1: the statements a list issues are counted at the project's database handle and do
 * not grow with the page size. On SQLite, expanded rows are kept between requests until the
 * next write (src/tables/related-row-cache.ts): a repeated list reads only its page, and every
 * kind of write (update, insert, delete, cascade, schema change, rule change) shows at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, signUp, type SignedUp } from '../helpers/auth-fixtures.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';
import { testEngine } from '../helpers/test-database.js';
import type { Database } from '../../src/store/types.js';
import type { Caller } from '../../src/tables/caller.js';
import { listRows } from '../../src/tables/row-list.js';
import { RelatedRowCache } from '../../src/tables/related-row-cache.js';
import { sql } from '../../src/query/sql-tree.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRow = Record<string, any>;

describe('expand: GET /p/{id}/api/{table}?expand=...', () => {
  let server: TestServer;
  let project: TestProject;
  let ada: SignedUp;
  let bob: SignedUp;
  const teams: AnyRow[] = [];
  const posts: AnyRow[] = [];
  const q = (text: string) => encodeURIComponent(text);
  const get = (path: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/${path}`, { headers: headers ?? project.admin });
  const create = async (table: string, body: unknown) => {
    const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
    assert.equal(response.status, 201, response.text);
    return response.body.data as AnyRow;
  };

  /** Counts the statements the server sends to this project's database while `work` runs. */
  async function countStatements(work: () => Promise<unknown>): Promise<number> {
    const db = (await server.built.services.schemas.schema(project.id)).db as unknown as Database &
      Record<string, unknown>;
    let statements = 0;
    const originals = { all: db.all, first: db.first, count: db.count };
    for (const name of ['all', 'first', 'count'] as const) {
      const original = originals[name] as (...args: unknown[]) => unknown;
      db[name] = ((...args: unknown[]) => {
        statements++;
        return original.apply(db, args);
      }) as never;
    }
    try {
      await work();
    } finally {
      for (const name of ['all', 'first', 'count'] as const) delete db[name];
    }
    return statements;
  }

  /**
   * Any write to the project: on SQLite it leaves the kept expanded rows stale, so the next
   * expanding request reads them again (statement counts below start from this cold state).
   */
  const write = async () => create('ticks', { n: 1 });

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
  });
  after(() => server.close());

  // The auth table references teams, so teams must exist first: build the schema in order.
  before(async () => {
    await putTable(server, project, 'ticks', { columns: [{ name: 'n', type: 'integer' }] });
    await putTable(server, project, 'orgs', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { view: '', list: '' },
    });
    await putTable(server, project, 'teams', {
      columns: [
        { name: 'name', type: 'text' },
        { name: 'plan', type: 'text' },
        { name: 'org', type: 'text', references: { table: 'orgs', on_delete: 'set_null' } },
      ],
      rules: { view: 'plan != "secret"', list: 'plan != "secret"' },
    });
    await putTable(server, project, 'users', {
      columns: [
        { name: 'name', type: 'text' },
        { name: 'team', type: 'text', references: { table: 'teams', on_delete: 'set_null' } },
      ],
      auth_table: true,
      rules: { view: 'id = @request.auth.id || team != null', list: '', update: 'id = @request.auth.id', create: '' },
    });
    await putTable(server, project, 'posts', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
        { name: 'editor', type: 'text', references: { table: 'users', on_delete: 'set_null' } },
      ],
      rules: { list: '', view: '' },
    });
    await putTable(server, project, 'comments', {
      columns: [
        { name: 'body', type: 'text' },
        { name: 'post', type: 'text', references: { table: 'posts', on_delete: 'cascade' } },
        { name: 'hidden', type: 'boolean', default: false },
      ],
      rules: { list: 'hidden = false', view: 'hidden = false' },
    });
    const org = await create('orgs', { name: 'Acme' });
    teams.push(await create('teams', { name: 'Red', plan: 'pro', org: org.id }));
    teams.push(await create('teams', { name: 'Black', plan: 'secret', org: org.id }));
    ada = await signUp(server, project, 'ada@example.com', { name: 'Ada' });
    bob = await signUp(server, project, 'bob@example.com', { name: 'Bob' });
    await server.request('PATCH', `/p/${project.id}/api/users/${ada.user.id}`, {
      headers: project.admin,
      body: { team: teams[0]!.id },
    });
    await server.request('PATCH', `/p/${project.id}/api/users/${bob.user.id}`, {
      headers: project.admin,
      body: { team: teams[1]!.id },
    });
    for (let i = 0; i < 25; i++) {
      posts.push(
        await create('posts', {
          title: `post ${i}`,
          author: i % 2 === 0 ? ada.user.id : bob.user.id,
          editor: i % 5 === 0 ? null : ada.user.id,
        }),
      );
    }
    // Post 0 has 105 comments (the reverse expansion stops at 100), post 1 has 3 (one hidden).
    const many = Array.from({ length: 105 }, (_, i) => ({
      body: `c${String(i).padStart(3, '0')}`,
      post: posts[0]!.id,
    }));
    assert.equal(
      (await server.request('POST', `/p/${project.id}/api/comments/bulk`, { headers: project.admin, body: many }))
        .status,
      201,
    );
    for (const [body, hidden] of [
      ['first', false],
      ['secret', true],
      ['last', false],
    ] as const)
      await create('comments', { body, post: posts[1]!.id, hidden });
  });

  it('forward: each row gains expand.author (a whole row); the column keeps its id; no reference → null', async () => {
    const response = await get('posts?limit=6&expand=author,editor');
    assert.equal(response.status, 200, response.text);
    const [first, second] = response.body.data as AnyRow[];
    assert.equal(first!.author, ada.user.id);
    assert.equal(first!.expand.author.id, ada.user.id);
    assert.equal(first!.expand.author.email, 'ada@example.com');
    assert.equal(first!.expand.editor, null, 'post 0 has no editor');
    assert.equal(second!.expand.author.name, 'Bob');
    assert.equal('password' in first!.expand.author, false);
  });

  it('nested forward paths (3 levels) nest inside the expanded row', async () => {
    const response = await get('posts?limit=1&expand=author.team.org');
    assert.equal(response.status, 200, response.text);
    const author = response.body.data[0].expand.author;
    assert.equal(author.expand.team.name, 'Red');
    assert.equal(author.expand.team.expand.org.name, 'Acme');
  });

  it('reverse: comments(post) in creation order, at most 100 per row; other rows get []', async () => {
    const response = await get(`posts?limit=3&expand=${q('comments(post)')}`);
    assert.equal(response.status, 200, response.text);
    const [p0, p1, p2] = response.body.data as AnyRow[];
    assert.equal(p0!.expand['comments(post)'].length, 100);
    assert.deepEqual(
      p0!.expand['comments(post)'].slice(0, 3).map((c: AnyRow) => c.body),
      ['c000', 'c001', 'c002'],
    );
    assert.equal(p0!.expand['comments(post)'][99].body, 'c099');
    assert.deepEqual(
      p1!.expand['comments(post)'].map((c: AnyRow) => c.body),
      ['first', 'secret', 'last'],
      'the admin key sees hidden comments',
    );
    assert.deepEqual(p2!.expand['comments(post)'], []);
  });

  it('reverse: parents with over 100 related rows each get the first 100 of each (windowed query)', async () => {
    // One post on the page: 105 comments pass the plain query's bound of 100, so the windowed query answers.
    let response: Awaited<ReturnType<typeof get>> | undefined;
    await write();
    const statements = await countStatements(
      async () => (response = await get(`posts?limit=1&count=none&expand=${q('comments(post)')}`)),
    );
    assert.equal(response!.status, 200, response!.text);
    const comments = (response!.body.data[0] as AnyRow).expand['comments(post)'] as AnyRow[];
    assert.deepEqual(
      comments.map((c) => c.body),
      Array.from({ length: 100 }, (_, i) => `c${String(i).padStart(3, '0')}`),
    );
    assert.equal(statements, 3, 'list + the bounded query + the windowed one');
  });

  it("expanded rows obey the caller's rules: hidden forward rows are null, unlisted reverse ones absent", async () => {
    const response = await get(`posts?limit=2&expand=${q('author.team,comments(post)')}`, bearer(ada.token));
    assert.equal(response.status, 200, response.text);
    const [p0, p1] = response.body.data as AnyRow[];
    assert.equal(p0!.expand.author.expand.team.name, 'Red');
    assert.equal(p1!.expand.author.name, 'Bob', 'Bob is in a team: the view rule shows him');
    assert.equal(p1!.expand.author.expand.team, null, "Bob's team has plan secret: not viewable");
    assert.equal(p1!.author, bob.user.id, 'the column keeps its id');
    assert.deepEqual(
      p1!.expand['comments(post)'].map((c: AnyRow) => c.body),
      ['first', 'last'],
    );
  });

  it('a locked view rule hides every expanded row (null), it is no error', async () => {
    await putTable(server, project, 'orgs', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { view: null, list: null },
    });
    const response = await get('posts?limit=1&expand=author.team.org', bearer(ada.token));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data[0].expand.author.expand.team.expand.org, null);
    await putTable(server, project, 'orgs', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { view: '', list: '' },
    });
  });

  it('select applies to the top row; expanded rows are whole', async () => {
    const response = await get('posts?limit=1&select=title&expand=author');
    assert.deepEqual(Object.keys(response.body.data[0]).sort(), ['expand', 'id', 'title']);
    assert.ok('email' in response.body.data[0].expand.author);
  });

  it('get: GET /api/{table}/{id}?expand= works the same way', async () => {
    const response = await get(`posts/${posts[1]!.id}?expand=${q('author,comments(post)')}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data.expand.author.name, 'Bob');
    assert.equal(response.body.data.expand['comments(post)'].length, 3);
    assertError(await get(`posts/${posts[1]!.id}?expand=nope`), 400, 'VALIDATION_FILTER');
  });

  it('no N+1: one statement per expansion node, whatever the page size (counted at the database handle)', async () => {
    const query = (limit: number) => `posts?limit=${limit}&expand=${q('author.team,editor,comments(post)')}`;
    await write();
    const small = await countStatements(() => get(query(2)));
    await write();
    const large = await countStatements(() => get(query(25)));
    // list + count + author + author.team + editor + comments(post); on SQLite the editors were
    // all read for author in the same request (same table, same rows), so editor reads nothing.
    const expected = testEngine() === 'sqlite' ? 5 : 6;
    assert.equal(small, expected);
    assert.equal(large, expected);
    assert.equal(await countStatements(() => get('posts?limit=25')), 2, 'without expand: list + count');
    // Ada's rules for users, teams and comments have conditions, so nothing kept serves her:
    // every node reads, once for the whole page, on every engine
    // (her token's session check adds the same to each request).
    const asAda = (path: string) => countStatements(() => get(path, bearer(ada.token)));
    const plain = await asAda('posts?limit=25');
    assert.equal(await asAda(query(2)), plain + 4);
    assert.equal(await asAda(query(25)), plain + 4);
  });

  describe('expanded rows kept between requests (SQLite) are never stale', () => {
    /**
     * The direct listRows calls below (interleavings HTTP cannot produce)
     * keep rows here, as the server's RowService does in its own.
     */
    const kept = new RelatedRowCache();
    const page = `posts?limit=4&count=none&expand=${q('author,comments(post)')}`;
    const expandedOf = async (path: string, headers?: Record<string, string>) => {
      const response = await get(path, headers);
      assert.equal(response.status, 200, response.text);
      return response.body.data as AnyRow[];
    };

    it('a repeated list reads only its page until a write; after a write, the expansions again', async () => {
      await write();
      assert.equal(await countStatements(() => get(page)), 3, 'page + author + comments(post)');
      // SQLite keeps the rows (this process sees every write);
      // PostgreSQL reads them every time (other processes write unseen).
      assert.equal(await countStatements(() => get(page)), testEngine() === 'sqlite' ? 1 : 3);
      await write();
      assert.equal(await countStatements(() => get(page)), 3);
    });

    it('an update of an expanded row shows on the next request', async () => {
      await expandedOf(page);
      const renamed = await server.request('PATCH', `/p/${project.id}/api/users/${ada.user.id}`, {
        headers: project.admin,
        body: { name: 'Ada L.' },
      });
      assert.equal(renamed.status, 200, renamed.text);
      const [p0] = await expandedOf(page);
      assert.equal(p0!.expand.author.name, 'Ada L.');
      await server.request('PATCH', `/p/${project.id}/api/users/${ada.user.id}`, {
        headers: project.admin,
        body: { name: 'Ada' },
      });
      assert.equal((await expandedOf(page))[0]!.expand.author.name, 'Ada');
    });

    it('a related row created or deleted shows on the next request; a parent with none keeps []', async () => {
      const before = await expandedOf(page);
      assert.deepEqual(before[2]!.expand['comments(post)'], []);
      const added = await create('comments', { body: 'late', post: posts[2]!.id });
      assert.deepEqual(
        (await expandedOf(page))[2]!.expand['comments(post)'].map((c: AnyRow) => c.body),
        ['late'],
      );
      assert.equal(
        (await server.request('DELETE', `/p/${project.id}/api/comments/${added.id}`, { headers: project.admin }))
          .status,
        204,
      );
      assert.deepEqual((await expandedOf(page))[2]!.expand['comments(post)'], []);
    });

    it('rows removed by a cascade from another table are gone on the next request', async () => {
      await putTable(server, project, 'stars', {
        columns: [
          { name: 'post', type: 'text', references: { table: 'posts', on_delete: 'cascade' } },
          { name: 'liker', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
        ],
        rules: { list: '', view: '' },
      });
      const cy = await signUp(server, project, 'cy@example.com', { name: 'Cy' });
      await create('stars', { post: posts[3]!.id, liker: cy.user.id });
      const stars = `posts?limit=4&count=none&expand=${q('stars(post)')}`;
      assert.equal((await expandedOf(stars))[3]!.expand['stars(post)'].length, 1);
      let again: AnyRow[] = [];
      const statements = await countStatements(async () => (again = await expandedOf(stars)));
      assert.equal(again[3]!.expand['stars(post)'].length, 1);
      assert.equal(
        statements,
        testEngine() === 'sqlite' ? 1 : 2,
        'read again: on SQLite only the page, the stars were kept',
      );
      // Deleting Cy deletes the star through the foreign key, inside the engine: no row of stars is written by Rowbase.
      assert.equal(
        (await server.request('DELETE', `/p/${project.id}/api/users/${cy.user.id}`, { headers: project.admin })).status,
        204,
      );
      assert.deepEqual((await expandedOf(stars))[3]!.expand['stars(post)'], []);
    });

    it('a schema change (a new column) shows in the expanded rows at once', async () => {
      await expandedOf(page);
      await putTable(server, project, 'comments', {
        columns: [
          { name: 'body', type: 'text' },
          { name: 'post', type: 'text', references: { table: 'posts', on_delete: 'cascade' } },
          { name: 'hidden', type: 'boolean', default: false },
          { name: 'score', type: 'integer', default: 7 },
        ],
        rules: { list: 'hidden = false', view: 'hidden = false' },
      });
      const [, p1] = await expandedOf(page);
      assert.deepEqual(
        p1!.expand['comments(post)'].map((c: AnyRow) => c.score),
        [7, 7, 7],
      );
    });

    it("kept rows never reach a caller under a conditional rule: the admin's view is not theirs", async () => {
      assert.deepEqual(
        (await expandedOf(page))[1]!.expand['comments(post)'].map((c: AnyRow) => c.body),
        ['first', 'secret', 'last'],
      );
      assert.deepEqual(
        (await expandedOf(page, bearer(ada.token)))[1]!.expand['comments(post)'].map((c: AnyRow) => c.body),
        ['first', 'last'],
      );
      assert.deepEqual(
        (await expandedOf(page))[1]!.expand['comments(post)'].map((c: AnyRow) => c.body),
        ['first', 'secret', 'last'],
      );
    });

    it('a rule locked after rows were kept hides them at once; opened again, they show', async () => {
      const orgPath = 'posts?limit=1&count=none&expand=author.team.org';
      assert.equal(
        (await expandedOf(orgPath, bearer(ada.token)))[0]!.expand.author.expand.team.expand.org.name,
        'Acme',
      );
      await putTable(server, project, 'orgs', {
        columns: [{ name: 'name', type: 'text' }],
        rules: { view: null, list: null },
      });
      assert.equal((await expandedOf(orgPath, bearer(ada.token)))[0]!.expand.author.expand.team.expand.org, null);
      await putTable(server, project, 'orgs', {
        columns: [{ name: 'name', type: 'text' }],
        rules: { view: '', list: '' },
      });
      assert.equal(
        (await expandedOf(orgPath, bearer(ada.token)))[0]!.expand.author.expand.team.expand.org.name,
        'Acme',
      );
    });

    it('a list starting during an open transaction reads after its commit: no kept rows mixed with newer', async () => {
      const dan = await signUp(server, project, 'dan@example.com', { name: 'Dan' });
      const setDan = (values: AnyRow) =>
        server.request('PATCH', `/p/${project.id}/api/users/${dan.user.id}`, { headers: project.admin, body: values });
      assert.equal((await setDan({ team: teams[0]!.id })).status, 200);
      const { db, tables } = await server.built.services.schemas.schema(project.id);
      const users = tables.get('users')!;
      const listTeams = (filter?: string) =>
        listRows(db, tables.get('teams')!, {
          caller: { kind: 'admin' },
          query: { expand: 'users(team)', count: 'none', sort: 'created_at', ...(filter && { filter }) },
          now: new Date().toISOString(),
          cursorKey: 'k'.repeat(32),
          tables,
          related: kept,
        });
      const membersOf = (page: Awaited<ReturnType<typeof listTeams>>) =>
        page.rows.flatMap((team) =>
          ((team.expand as AnyRow)['users(team)'] as AnyRow[])
            .filter((u) => u.id === dan.user.id)
            .map((u) => `${team.name}:${u.name}`),
        );
      // Red's members are kept (Dan among them); Black's are not.
      assert.deepEqual(membersOf(await listTeams('name = "Red"')), ['Red:Dan']);
      // The list reads its page of teams at once; then a transaction takes the database before it
      // writes (Dan moves to Black and is renamed), while the list goes on to expand the page.
      const listing = listTeams();
      let letWrite!: () => void;
      const writeNow = new Promise<void>((resolve) => (letWrite = resolve));
      const moving = db.transaction(async (tx) => {
        await writeNow;
        await tx.run({
          kind: 'update',
          table: 'users',
          set: [
            { column: users.physical.get('team')!, value: sql.value(teams[1]!.id, 'text') },
            { column: users.physical.get('name')!, value: sql.value('Daniel', 'text') },
          ],
          where: sql.eq('id', dan.user.id),
        });
      });
      // Let the list get as far as it can before the write (on SQLite: to a read waiting for the transaction).
      await new Promise((resolve) => setImmediate(resolve));
      letWrite();
      await moving;
      // SQLite: the list waits for the commit and reads after it, not also under Red from the kept
      // rows. PostgreSQL keeps nothing and does not wait: it reads one state or the other.
      const seen = membersOf(await listing);
      if (testEngine() === 'sqlite') assert.deepEqual(seen, ['Black:Daniel'], 'Dan once, as committed');
      else assert.ok(['Red:Dan', 'Black:Daniel'].includes(seen.join()), `Dan once, in one state: ${seen.join()}`);
      assert.deepEqual(membersOf(await listTeams()), ['Black:Daniel']);
    });

    it('nested expansion of kept rows by callers with other rules, interleaved: each gets its own rows', async () => {
      // Crews are open (kept rows serve every caller); bosses are not (a secret boss is null for the public).
      await putTable(server, project, 'bosses', {
        columns: [
          { name: 'name', type: 'text' },
          { name: 'secret', type: 'boolean', default: false },
        ],
        rules: { view: 'secret = false', list: 'secret = false' },
      });
      await putTable(server, project, 'crews', {
        columns: [{ name: 'boss', type: 'text', references: { table: 'bosses', on_delete: 'set_null' } }],
        rules: { view: '', list: '' },
      });
      await putTable(server, project, 'gigs', {
        columns: [{ name: 'crew', type: 'text', references: { table: 'crews', on_delete: 'set_null' } }],
        rules: { view: '', list: '' },
      });
      const boss = await create('bosses', { name: 'Hidden', secret: true });
      const crew = await create('crews', { boss: boss.id });
      await create('gigs', { crew: crew.id });
      // Two list calls started in the same tick run their awaits interleaved (HTTP requests would
      // each run to the end on SQLite), both expanding the same kept crew row one level further.
      const { db, tables } = await server.built.services.schemas.schema(project.id);
      const list = (caller: Caller) =>
        listRows(db, tables.get('gigs')!, {
          caller,
          query: { expand: 'crew.boss', count: 'none' },
          now: new Date().toISOString(),
          cursorKey: 'k'.repeat(32),
          tables,
          related: kept,
        });
      await list({ kind: 'admin' }); // keeps the crew row
      const callers: Caller[] = Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? { kind: 'admin' } : { kind: 'public' },
      );
      const pages = await Promise.all(callers.map(list));
      pages.forEach((page, i) => {
        const boss = (page.rows[0]!.expand as AnyRow).crew.expand.boss;
        if (callers[i]!.kind === 'admin')
          assert.equal(boss?.name, 'Hidden', `call ${i} (admin key) sees the secret boss`);
        else assert.equal(boss, null, `call ${i} (public) may not view the secret boss`);
      });
    });
  });

  it('a column named "expand" is refused at declaration (400 VALIDATION_FAILED): answers use it', async () => {
    const response = await server.request('PUT', `/p/${project.id}/v1/tables/boxes`, {
      headers: project.admin,
      body: { columns: [{ name: 'expand', type: 'text' }] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assert.match(response.body.error.message, /"expand" is a reserved name/);
    assert.match(response.body.error.suggestion, /Choose another name/);
  });

  const refused: [string, string, RegExp][] = [
    ['an unknown name', 'expand=writer', /author, editor, comments\(post\)/],
    ['a column that is no reference', 'expand=title', /author, editor/],
    ['a path deeper than 3', 'expand=author.team.org.name', /author\.team\.org/],
    ['a reverse whose column does not reference the table', `expand=${q('comments(body)')}`, /comments\(post\)/],
    ['an unknown table in a reverse path', `expand=${q('likes(post)')}`, /comments\(post\)/],
    ['an empty item', 'expand=author,,editor', /author/],
    ['with aggregates', 'select=author,count()&expand=author', /aggregate/],
  ];
  for (const [name, query, suggestion] of refused) {
    it(`${name} → 400 VALIDATION_FILTER, the suggestion names what is valid`, async () => {
      const response = await get(`posts?${query}`);
      assertError(response, 400, 'VALIDATION_FILTER');
      assert.match(response.body.error.suggestion, suggestion);
    });
  }

  const refusedValues = refused.filter(([name]) => name !== 'with aggregates');
  for (const [name, query] of refusedValues) {
    it(`${name}: the refusal names the parameter in error.field ("expand"); no need to read the message`, async () => {
      const response = await get(`posts?${query}`);
      assertError(response, 400, 'VALIDATION_FILTER');
      assert.equal(response.body.error.field, 'expand', response.text);
    });
  }

  it('a refused filter= carries no error.field: only the expand refusal names one', async () => {
    const response = await get(`posts?filter=${q('nope = 1')}`);
    assertError(response, 400, 'VALIDATION_FILTER');
    assert.equal('field' in response.body.error, false, response.text);
  });
});
