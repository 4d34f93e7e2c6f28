/**
 * Relation paths (contract §13) in rules (`owner.team = @request.auth.team`,
 * `@request.auth.team.plan = "pro"`), filter, shorthand and sort, up to 3 hops; a caller's own
 * filter, shorthand or sort reads a related row only if the caller may view it, at each hop
 * (a fast-check property over random data and rules on two tables, checking filter, shorthand,
 * sort and a two-hop filter against a model); password never, and email only of rows the
 * caller may view.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertError } from '../helpers/assert-error.js';
import { bearer, signUp, type SignedUp } from '../helpers/auth-fixtures.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRow = Record<string, any>;

describe('relation paths', () => {
  let server: TestServer;
  let project: TestProject;
  let ada: SignedUp;
  let bob: SignedUp;
  let cyd: SignedUp;
  const teams: Record<string, AnyRow> = {};
  const q = (text: string) => encodeURIComponent(text);
  const get = (path: string, headers?: Record<string, string>) =>
    server.request('GET', `/p/${project.id}/api/${path}`, { headers: headers ?? project.admin });
  const titles = (response: { body: { data: AnyRow[] } }) => response.body.data.map((row) => row.title).sort();
  const create = async (table: string, body: unknown) => {
    const response = await server.request('POST', `/p/${project.id}/api/${table}`, { headers: project.admin, body });
    assert.equal(response.status, 201, response.text);
    return response.body.data as AnyRow;
  };

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
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
      rules: { view: '', list: '' },
    });
    await putTable(server, project, 'users', {
      columns: [
        { name: 'name', type: 'text' },
        { name: 'team', type: 'text', references: { table: 'teams', on_delete: 'set_null' } },
      ],
      auth_table: true,
      // Members of one team see each other.
      rules: {
        view: 'id = @request.auth.id || team = @request.auth.team',
        list: 'id = @request.auth.id || team = @request.auth.team',
        create: '',
        update: 'id = @request.auth.id',
      },
    });
    const org = await create('orgs', { name: 'Acme' });
    teams.red = await create('teams', { name: 'Red', plan: 'pro', org: org.id });
    teams.blue = await create('teams', { name: 'Blue', plan: 'free', org: org.id });
    ada = await signUp(server, project, 'ada@example.com', { name: 'Ada', team: teams.red.id });
    bob = await signUp(server, project, 'bob@example.com', { name: 'Bob', team: teams.blue.id });
    cyd = await signUp(server, project, 'cyd@example.com', { name: 'Cyd', team: teams.red.id });
    // "Members of the row's team": the docs' worked example.
    await putTable(server, project, 'posts', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      ],
      rules: {
        list: 'owner.team = @request.auth.team',
        view: 'owner.team = @request.auth.team',
        create: '',
        update: 'owner = @request.auth.id',
        delete: 'owner = @request.auth.id',
      },
    });
    await putTable(server, project, 'features', {
      columns: [{ name: 'title', type: 'text' }],
      rules: { list: '@request.auth.team.plan = "pro"', view: '@request.auth.team.plan = "pro"' },
    });
    // Notes are open to list; their owners are users, whom only teammates may view.
    await putTable(server, project, 'notes', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      ],
      rules: { list: '', view: '' },
    });
    for (const [title, owner] of [
      ['ada 1', ada],
      ['ada 2', ada],
      ['bob 1', bob],
      ['cyd 1', cyd],
    ] as const) {
      await create('posts', { title, owner: owner.user.id });
      await create('notes', { title, owner: owner.user.id });
    }
    await create('features', { title: 'beta' });
  });
  after(() => server.close());

  describe('in rules (read related rows freely)', () => {
    it('list rule owner.team = @request.auth.team: each user lists the posts of their team', async () => {
      assert.deepEqual(titles(await get('posts', bearer(ada.token))), ['ada 1', 'ada 2', 'cyd 1']);
      assert.deepEqual(titles(await get('posts', bearer(bob.token))), ['bob 1']);
      const total = await get('posts', bearer(cyd.token));
      assert.equal(total.body.meta.total, 3);
    });

    it('view rule: a post of another team is 404 ROW_NOT_FOUND', async () => {
      const bobs = (await get(`posts?filter=${q('title = "bob 1"')}`)).body.data[0];
      assertError(await get(`posts/${bobs.id}`, bearer(ada.token)), 404, 'ROW_NOT_FOUND');
      assert.equal((await get(`posts/${bobs.id}`, bearer(bob.token))).status, 200);
    });

    it('@request.auth.team.plan = "pro": only users of a pro team list features; anonymous none', async () => {
      assert.deepEqual(titles(await get('features', bearer(ada.token))), ['beta']);
      assert.deepEqual(titles(await get('features', bearer(bob.token))), []);
      assert.deepEqual(titles(await get('features', project.anon)), []);
    });

    it('create, update and delete rules with paths: teammates may, others may not', async () => {
      const rule = 'owner.team = @request.auth.team';
      await putTable(server, project, 'docs', {
        columns: [
          { name: 'title', type: 'text' },
          { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
        ],
        rules: { list: '', view: '', create: rule, update: rule, delete: rule },
      });
      const write = (method: string, path: string, token: string, body?: unknown) =>
        server.request(method, `/p/${project.id}/api/${path}`, {
          headers: bearer(token),
          ...(body !== undefined && { body }),
        });
      const created = await write('POST', 'docs', ada.token, { title: 'for cyd', owner: cyd.user.id });
      assert.equal(created.status, 201, created.text);
      assertError(await write('POST', 'docs', ada.token, { title: 'for bob', owner: bob.user.id }), 403, 'FORBIDDEN');
      const id = created.body.data.id;
      assert.equal((await write('PATCH', `docs/${id}`, ada.token, { title: 'edited' })).status, 200);
      assertError(await write('PATCH', `docs/${id}`, bob.token, { title: 'hijacked' }), 404, 'ROW_NOT_FOUND');
      assertError(await write('DELETE', `docs/${id}`, bob.token), 404, 'ROW_NOT_FOUND');
      assert.equal((await write('DELETE', `docs/${id}`, cyd.token)).status, 204);
      assert.deepEqual((await get('docs')).body.data, []);
    });

    it('a rule with a path through a missing or non-reference column → 400 VALIDATION_FAILED at PUT', async () => {
      for (const rule of [
        'owner.tema = @request.auth.team',
        'title.name = "x"',
        '@request.auth.name.x = "y"',
        'owner.team.org.name.x = "y"',
      ]) {
        const response = await server.request('PUT', `/p/${project.id}/v1/tables/posts`, {
          headers: project.admin,
          body: {
            columns: [
              { name: 'title', type: 'text' },
              { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
            ],
            rules: { list: rule },
          },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('dropping a column a path rule reads is refused while the rule uses it', async () => {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/teams?allow_destructive=true`, {
        headers: project.admin,
        body: {
          columns: [
            { name: 'name', type: 'text' },
            { name: 'org', type: 'text', references: { table: 'orgs', on_delete: 'set_null' } },
          ],
          rules: { view: '', list: '' },
        },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
    });
  });

  describe('in filter, shorthand and sort', () => {
    it('admin: 1, 2 and 3 hops in filter; shorthand owner.name=eq.Ada', async () => {
      assert.deepEqual(titles(await get(`notes?filter=${q('owner.name = "Ada"')}`)), ['ada 1', 'ada 2']);
      assert.deepEqual(titles(await get(`notes?filter=${q('owner.team.name = "Red"')}`)), ['ada 1', 'ada 2', 'cyd 1']);
      assert.deepEqual(
        titles(await get(`notes?filter=${q('owner.team.org.name = "Acme" && owner.team.plan != "pro"')}`)),
        ['bob 1'],
      );
      assert.deepEqual(titles(await get('notes?owner.name=eq.Ada')), ['ada 1', 'ada 2']);
      assert.deepEqual(titles(await get('notes?owner.team.plan=in.(free)')), ['bob 1']);
    });

    it("a caller's filter reads only related rows it may view: other teams' owners read as null", async () => {
      // Bob may list every note but view only his own team's users.
      assert.deepEqual(titles(await get(`notes?filter=${q('owner.name = "Ada"')}`, bearer(bob.token))), []);
      assert.deepEqual(titles(await get(`notes?filter=${q('owner.name = null')}`, bearer(bob.token))), [
        'ada 1',
        'ada 2',
        'cyd 1',
      ]);
      assert.deepEqual(titles(await get(`notes?filter=${q('owner.name = "Bob"')}`, bearer(bob.token))), ['bob 1']);
      assert.deepEqual(
        titles(await get('notes?owner.email=eq.ada@example.com', bearer(bob.token))),
        [],
        'no probing emails of users he cannot view',
      );
      assert.deepEqual(
        titles(await get('notes?owner.email=eq.ada@example.com', bearer(cyd.token))),
        ['ada 1', 'ada 2'],
        'a teammate may',
      );
    });

    it('sort by a path: the related column orders the rows (nulls first), hidden owners sort as null', async () => {
      assert.deepEqual(
        (await get('notes?sort=-owner.name,title')).body.data.map((row: AnyRow) => row.title),
        ['cyd 1', 'bob 1', 'ada 1', 'ada 2'],
      );
      assert.deepEqual(
        (await get('notes?sort=owner.team.name,title')).body.data.map((row: AnyRow) => row.title),
        ['bob 1', 'ada 1', 'ada 2', 'cyd 1'],
      );
      // Bob views only himself: the other owners read as null and come first, in title order.
      const asBob = await get('notes?sort=owner.name,title', bearer(bob.token));
      assert.deepEqual(
        asBob.body.data.map((row: AnyRow) => row.title),
        ['ada 1', 'ada 2', 'cyd 1', 'bob 1'],
      );
      assert.deepEqual(
        Object.keys(asBob.body.data[0]).sort(),
        ['created_at', 'id', 'owner', 'title', 'updated_at'],
        'the sort value is not returned',
      );
    });

    it('cursor paging under a path sort walks the same order', async () => {
      const whole = (await get('notes?sort=-owner.team.name,owner.name')).body.data.map((row: AnyRow) => row.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(`notes?sort=-owner.team.name,owner.name&limit=1${cursor ? `&after=${q(cursor)}` : ''}`);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.data.map((row: AnyRow) => row.id));
        cursor = page.body.meta.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(seen, whole);
      assertError(await get('notes?sort=owner.password'), 400, 'VALIDATION_FILTER');
    });

    it('password is never filterable, through any path', async () => {
      assertError(await get(`notes?filter=${q('owner.password = "x"')}`), 400, 'VALIDATION_FILTER');
      assertError(await get('notes?owner.password=eq.x', bearer(bob.token)), 400, 'VALIDATION_FILTER');
      assertError(await get(`notes?filter=${q('owner.password_version = 1')}`), 400, 'VALIDATION_FILTER');
    });

    const refused: [string, string, RegExp][] = [
      ['a path deeper than 3 hops', `filter=${q('owner.team.org.name.x = "y"')}`, /.+/],
      ['an unknown column at the end', `filter=${q('owner.nmae = "Ada"')}`, /email, .*name/],
      ['a column that is no reference in the middle', `filter=${q('title.name = "x"')}`, /owner/],
      ['shorthand through a non-reference', 'owner.name.x=eq.y', /references of "users": team/],
    ];
    for (const [name, query, suggestion] of refused) {
      it(`${name} → 400 VALIDATION_FILTER`, async () => {
        const response = await get(`notes?${query}`);
        assertError(response, 400, 'VALIDATION_FILTER');
        assert.match(response.body.error.suggestion, suggestion);
      });
    }
  });

  describe('property: filtering or sorting on a path never reveals a row the caller could not view', () => {
    it('random groups, members, rules, values: filter, shorthand, sort, two-hop filter match a model', async () => {
      const callers = [ada, bob, cyd];
      const memberRules = [
        '',
        'viewer = @request.auth.id',
        'score > 5',
        'viewer = @request.auth.id || score < 3',
        null,
      ];
      const groupRules = ['', 'viewer = @request.auth.id', 'level > 4', null];
      const shorthand = { '=': 'eq', '!=': 'neq', '>': 'gt', '<=': 'lte' } as const;
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              level: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
              viewer: fc.integer({ min: 0, max: 3 }),
            }),
            { minLength: 1, maxLength: 3 },
          ),
          fc.array(
            fc.record({
              score: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
              viewer: fc.integer({ min: 0, max: 3 }),
              group: fc.integer({ min: 0, max: 3 }),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 0, max: memberRules.length - 1 }),
          fc.integer({ min: 0, max: groupRules.length - 1 }),
          fc.constantFrom('=', '!=', '>', '<=') as fc.Arbitrary<'=' | '!=' | '>' | '<='>,
          fc.integer({ min: 0, max: 9 }),
          async (groups, members, items, memberRuleIndex, groupRuleIndex, op, value) => {
            run++;
            const suffix = `r${run}`;
            const memberRule = memberRules[memberRuleIndex]!;
            const groupRule = groupRules[groupRuleIndex]!;
            await putTable(server, project, `groups_${suffix}`, {
              columns: [
                { name: 'level', type: 'integer' },
                { name: 'viewer', type: 'text' },
              ],
              rules: { view: groupRule, list: groupRule },
            });
            await putTable(server, project, `members_${suffix}`, {
              columns: [
                { name: 'score', type: 'integer' },
                { name: 'viewer', type: 'text' },
                { name: 'grp', type: 'text', references: { table: `groups_${suffix}`, on_delete: 'set_null' } },
              ],
              rules: { view: memberRule, list: memberRule },
            });
            await putTable(server, project, `items_${suffix}`, {
              columns: [
                { name: 'n', type: 'integer' },
                { name: 'member', type: 'text', references: { table: `members_${suffix}`, on_delete: 'cascade' } },
              ],
              rules: { list: '', view: '' },
            });
            const viewers = [ada.user.id, bob.user.id, cyd.user.id, 'nobody'];
            const bulk = async (table: string, rows: AnyRow[]) => {
              const response = await server.request('POST', `/p/${project.id}/api/${table}_${suffix}/bulk`, {
                headers: project.admin,
                body: rows,
              });
              assert.equal(response.status, 201, response.text);
              return response.body.data as AnyRow[];
            };
            const createdGroups = await bulk(
              'groups',
              groups.map((g) => ({ level: g.level, viewer: viewers[g.viewer] })),
            );
            const createdMembers = await bulk(
              'members',
              members.map((m) => ({
                score: m.score,
                viewer: viewers[m.viewer],
                grp: createdGroups[m.group]?.id ?? null,
              })),
            );
            const itemBody = items.map((i, n) => ({ n, member: createdMembers[i]?.id ?? null }));
            await bulk('items', itemBody);
            const allowed = (
              rule: string | null,
              row: AnyRow,
              callerId: string,
              column: 'score' | 'level',
            ): boolean => {
              if (rule === null) return false;
              if (rule === '') return true;
              if (rule === 'viewer = @request.auth.id') return row.viewer === callerId;
              if (rule === 'score > 5' || rule === 'level > 4')
                return row[column] !== null && row[column] > (column === 'score' ? 5 : 4);
              return row.viewer === callerId || (row.score !== null && row.score < 3);
            };
            const holds = (x: number | null): boolean => {
              if (op === '!=') return x !== value; // null-safe
              if (x === null) return false;
              return op === '=' ? x === value : op === '>' ? x > value : x <= value;
            };
            for (const caller of callers) {
              const id = caller.user.id;
              // What the caller may read through each hop: a row it may not view reads as null, exactly like no row.
              const memberOf = (item: AnyRow) => {
                const member = createdMembers.find((m) => m.id === item.member);
                return member && allowed(memberRule, member, id, 'score') ? member : null;
              };
              const scoreOf = (item: AnyRow) => memberOf(item)?.score ?? null;
              const levelOf = (item: AnyRow) => {
                const group = createdGroups.find((g) => g.id === memberOf(item)?.grp);
                return group && allowed(groupRule, group, id, 'level') ? group.level : null;
              };
              const expectMatching = (read: (item: AnyRow) => number | null) =>
                itemBody
                  .filter((item) => holds(read(item)))
                  .map((item) => item.n)
                  .sort((x, y) => x - y);
              const numbers = (response: { status: number; text: string; body: { data: AnyRow[] } }) => {
                assert.equal(response.status, 200, response.text);
                return response.body.data.map((row) => row.n as number);
              };
              const label =
                `member rule ${JSON.stringify(memberRule)}, group rule ` +
                `${JSON.stringify(groupRule)}, ${op} ${value}, caller ${caller.user.email}`;
              const asCaller = (query: string) =>
                server.request('GET', `/p/${project.id}/api/items_${suffix}?limit=1000&${query}`, {
                  headers: bearer(caller.token),
                });
              const byNumber = (list: number[]) => [...list].sort((x, y) => x - y);
              assert.deepEqual(
                byNumber(numbers(await asCaller(`filter=${q(`member.score ${op} ${value}`)}`))),
                expectMatching(scoreOf),
                `filter: ${label}`,
              );
              assert.deepEqual(
                byNumber(numbers(await asCaller(`member.score=${shorthand[op]}.${value}`))),
                expectMatching(scoreOf),
                `shorthand: ${label}`,
              );
              assert.deepEqual(
                byNumber(numbers(await asCaller(`filter=${q(`member.grp.level ${op} ${value}`)}`))),
                expectMatching(levelOf),
                `two hops: ${label}`,
              );
              // Sort: a hidden member sorts as null (first, ascending), so the order cannot probe it either.
              const sorted = [...itemBody].sort((x, y) => {
                const sx = scoreOf(x);
                const sy = scoreOf(y);
                if (sx !== sy) return sx === null ? -1 : sy === null ? 1 : sx - sy;
                return x.n - y.n;
              });
              assert.deepEqual(
                numbers(await asCaller('sort=member.score,n')),
                sorted.map((item) => item.n),
                `sort: ${label}`,
              );
            }
          },
        ),
        { numRuns: 15 },
      );
    });
  });
});
