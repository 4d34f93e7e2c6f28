/**
 * Realtime under each table's rules (contract §11): owner-only rows on table, row and
 * filtered topics, the admin key, writes made through the auth endpoints, and every way an
 * identity ends (`auth_expired`, then nothing until a new subscription call).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bearer,
  createAuthProject,
  logIn,
  PASSWORD,
  signUp,
  tokenIn,
  waitForMail,
  mailsTo,
  type SignedUp,
} from '../helpers/auth-fixtures.js';
import { openStream, type SseEvent, type SseStream } from '../helpers/sse-client.js';
import { putTable, startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

const ORIGIN = 'https://app.example.com';
const clock = new TestClock();
let server: TestServer;
const streams: SseStream[] = [];

before(async () => {
  server = await startTestServer({}, { clock, realtime: { pollMs: 100 } });
});
after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

async function newProject(): Promise<TestProject> {
  const project = await createAuthProject(server, { settings: { allowed_redirect_origins: [ORIGIN] } });
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'title', type: 'text' },
      { name: 'owner', type: 'text' },
    ],
    rules: {
      list: 'owner = @request.auth.id',
      view: 'owner = @request.auth.id',
      create: 'owner = @request.auth.id',
      update: 'owner = @request.auth.id',
      delete: 'owner = @request.auth.id',
    },
  });
  return project;
}

async function streamFor(project: TestProject, headers: Record<string, string>, topics: string[]): Promise<SseStream> {
  const stream = await openStream(server.url, project.id);
  streams.push(stream);
  const response = await server.request('POST', `/p/${project.id}/realtime`, {
    headers,
    body: { client_id: stream.clientId, subscriptions: topics },
  });
  assert.equal(response.status, 200, response.text);
  return stream;
}

async function note(project: TestProject, user: SignedUp, title: string): Promise<{ id: string }> {
  const response = await server.request('POST', `/p/${project.id}/api/notes`, {
    headers: bearer(user.token),
    body: { title, owner: user.user.id },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

describe('owner-only rows', () => {
  let project: TestProject;
  let ada: SignedUp;
  let bob: SignedUp;
  before(async () => {
    project = await newProject();
    ada = await signUp(server, project, 'ada@example.com');
    bob = await signUp(server, project, 'bob@example.com');
  });

  it("user A never gets B's events (table, row, filter on B's rows); A's own arrive; admin sees all", async () => {
    const bobsFirst = await note(project, bob, 'bob x 0');
    const filter = `notes?filter=${encodeURIComponent('title ~ "x"')}`;
    const adaStream = await streamFor(project, bearer(ada.token), ['notes', `notes/${bobsFirst.id}`, filter]);
    const bobStream = await streamFor(project, bearer(bob.token), ['notes']);
    const admin = await streamFor(project, project.admin, ['notes']);
    const patched = await server.request('PATCH', `/p/${project.id}/api/notes/${bobsFirst.id}`, {
      headers: bearer(bob.token),
      body: { title: 'bob x 1' },
    });
    assert.equal(patched.status, 200);
    await note(project, bob, 'bob x 2');
    const adas = await note(project, ada, 'ada x 3');
    assert.equal(
      (await server.request('DELETE', `/p/${project.id}/api/notes/${bobsFirst.id}`, { headers: bearer(bob.token) }))
        .status,
      204,
    );
    // Later writes each stream must see: what it lacks before them was withheld, not late.
    await note(project, ada, 'ada barrier');
    await note(project, bob, 'bob barrier');
    const titled = (title: string) => (e: SseEvent) => e.json?.record?.title === title;
    assert.deepEqual(
      (await adaStream.before(titled('ada barrier'))).map((e) => [e.event, e.json.record.id]),
      [
        ['notes', adas.id],
        [filter, adas.id],
      ],
    );
    assert.deepEqual(
      (await bobStream.before(titled('bob barrier'))).map((e) => e.json.record.title),
      ['bob x 1', 'bob x 2', 'bob x 1'],
    );
    assert.equal((await admin.before(titled('ada barrier'))).length, 4);
  });

  it('a moved row is judged on its new values: an update giving B’s row to A reaches A, not the reverse', async () => {
    const row = await note(project, bob, 'gift');
    const adaStream = await streamFor(project, bearer(ada.token), ['notes']);
    const give = await server.request('PATCH', `/p/${project.id}/api/notes/${row.id}`, {
      headers: project.admin,
      body: { owner: ada.user.id },
    });
    assert.equal(give.status, 200);
    const takeBack = await server.request('PATCH', `/p/${project.id}/api/notes/${row.id}`, {
      headers: project.admin,
      body: { owner: bob.user.id },
    });
    assert.equal(takeBack.status, 200);
    await note(project, ada, 'barrier');
    const judged = await adaStream.before((e) => e.json?.record?.title === 'barrier');
    assert.deepEqual(
      judged.map((e) => [e.json.action, e.json.record.owner]),
      [['update', ada.user.id]],
    );
  });

  it('signup and changes made by the auth endpoints reach subscribers of the auth table', async () => {
    const admin = await streamFor(project, project.admin, ['users']);
    const carol = await signUp(server, project, 'carol@example.com');
    const changed = await server.request('POST', `/p/${project.id}/auth/change-password`, {
      headers: bearer(carol.token),
      body: { current_password: PASSWORD, new_password: 'another good password' },
    });
    assert.equal(changed.status, 200, changed.text);
    const events = await admin.waitFor(2);
    assert.deepEqual(
      events.map((e) => [e.json.action, e.json.record.email]),
      [
        ['create', 'carol@example.com'],
        ['update', 'carol@example.com'],
      ],
    );
    assert.equal('password' in events[0]!.json.record, false);
  });
});

describe('auth_expired: the identity ends, the stream goes quiet until a new POST', () => {
  const cases: [string, (project: TestProject, user: SignedUp) => Promise<void>][] = [
    ['the access token expires (clock moved past exp)', async () => clock.advance(3601)],
    [
      'logout',
      async (project, user) => {
        assert.equal(
          (await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(user.token) })).status,
          204,
        );
      },
    ],
    [
      'password change',
      async (project, user) => {
        const response = await server.request('POST', `/p/${project.id}/auth/change-password`, {
          headers: bearer(user.token),
          body: { current_password: PASSWORD, new_password: 'another good password' },
        });
        assert.equal(response.status, 200, response.text);
      },
    ],
    [
      'password reset',
      async (project, user) => {
        const before = (await mailsTo(server, project, user.user.email)).length;
        assert.equal(
          (
            await server.request('POST', `/p/${project.id}/auth/forgot-password`, {
              body: { email: user.user.email, redirect_url: `${ORIGIN}/reset` },
            })
          ).status,
          200,
        );
        const token = tokenIn(await waitForMail(server, project, user.user.email, before + 1));
        assert.equal(
          (
            await server.request('POST', `/p/${project.id}/auth/reset-password`, {
              body: { token, new_password: 'another good password' },
            })
          ).status,
          200,
        );
      },
    ],
    [
      'JWT secret rotation',
      async (project) => {
        assert.equal(
          (await server.request('POST', `/p/${project.id}/v1/rotate-jwt-secret`, { headers: project.admin })).status,
          200,
        );
      },
    ],
    [
      'the user row is deleted',
      async (project, user) => {
        assert.equal(
          (await server.request('DELETE', `/p/${project.id}/api/users/${user.user.id}`, { headers: project.admin }))
            .status,
          204,
        );
      },
    ],
  ];
  for (const [name, end] of cases) {
    it(name, async () => {
      const project = await newProject();
      const user = await signUp(server, project, 'dora@example.com');
      const stream = await streamFor(project, bearer(user.token), ['notes']);
      // Sees every note: once it has one, the feed has judged that note for every stream.
      const witness = await streamFor(project, project.admin, ['notes']);
      await note(project, user, 'before');
      await stream.waitFor(1);
      await end(project, user);
      await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: project.admin,
        body: { title: 'after', owner: user.user.id },
      });
      await stream.waitFor(1, (e) => e.event === 'auth_expired');
      await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: project.admin,
        body: { title: 'later', owner: user.user.id },
      });
      await witness.waitFor(1, (e) => e.json?.record?.title === 'later');
      // A new POST with a valid identity binds again (the admin key, once the user is gone); its
      // first event is the barrier: anything the ended binding let through would be before it.
      const fresh = name.startsWith('the user row')
        ? undefined
        : await logIn(
            server,
            project,
            'dora@example.com',
            name.startsWith('password') ? 'another good password' : PASSWORD,
          );
      const again = await server.request('POST', `/p/${project.id}/realtime`, {
        headers: fresh ? bearer(fresh.token) : project.admin,
        body: { client_id: stream.clientId, subscriptions: ['notes'] },
      });
      assert.equal(again.status, 200, again.text);
      await server.request('POST', `/p/${project.id}/api/notes`, {
        headers: project.admin,
        body: { title: 'again', owner: user.user.id },
      });
      const judged = await stream.before((e) => e.json?.record?.title === 'again');
      assert.deepEqual(
        judged.map((e) => (e.event === 'auth_expired' ? ['auth_expired', e.data] : e.json.record.title)),
        ['before', ['auth_expired', '{}']],
      );
      assert.equal(stream.received().at(-1)!.event, 'notes');
    });
  }

  it('key rotation ends a pk_ binding', async () => {
    const project = await createAuthProject(server);
    await putTable(server, project, 'open', { columns: [{ name: 'title', type: 'text' }], rules: { list: '' } });
    const stream = await streamFor(project, project.anon, ['open']);
    const witness = await streamFor(project, project.admin, ['open']);
    const rotated = await server.request('POST', `/p/${project.id}/v1/rotate-keys`, {
      headers: project.admin,
      body: { type: 'pk' },
    });
    assert.equal(rotated.status, 200, rotated.text);
    await server.request('POST', `/p/${project.id}/api/open`, { headers: project.admin, body: { title: 'after' } });
    await stream.waitFor(1, (e) => e.event === 'auth_expired');
    await witness.waitFor(1, (e) => e.json?.record?.title === 'after');
    // Bound again with the admin key: its first event is the barrier on this stream.
    assert.equal(
      (
        await server.request('POST', `/p/${project.id}/realtime`, {
          headers: project.admin,
          body: { client_id: stream.clientId, subscriptions: ['open'] },
        })
      ).status,
      200,
    );
    await server.request('POST', `/p/${project.id}/api/open`, { headers: project.admin, body: { title: 'again' } });
    assert.deepEqual(
      (await stream.before((e) => e.json?.record?.title === 'again')).map((e) => e.event),
      ['auth_expired'],
    );
  });
});

describe('rules that follow relation paths (resolved once per event)', () => {
  it('owner.team = @request.auth.team: teammates receive the row, others do not, deletes included', async () => {
    const project = await createAuthProject(server, { columns: [{ name: 'team', type: 'text' }] });
    await putTable(server, project, 'posts', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'text', references: { table: 'users', on_delete: 'cascade' } },
      ],
      rules: { list: 'owner.team = @request.auth.team', view: 'owner.team = @request.auth.team' },
    });
    const ada = await signUp(server, project, 'ada@example.com', { team: 'red' });
    const bob = await signUp(server, project, 'bob@example.com', { team: 'red' });
    const cy = await signUp(server, project, 'cy@example.com', { team: 'blue' });
    const adaStream = await streamFor(project, bearer(ada.token), ['posts']);
    const cyStream = await streamFor(project, bearer(cy.token), ['posts']);
    const created = await server.request('POST', `/p/${project.id}/api/posts`, {
      headers: project.admin,
      body: { title: 'red news', owner: bob.user.id },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(
      (await server.request('DELETE', `/p/${project.id}/api/posts/${created.body.data.id}`, { headers: project.admin }))
        .status,
      204,
    );
    await server.request('POST', `/p/${project.id}/api/posts`, {
      headers: project.admin,
      body: { title: 'blue news', owner: cy.user.id },
    });
    // Later posts each stream must see: what it lacks before them was withheld, not late.
    for (const [title, owner] of [
      ['red barrier', bob],
      ['blue barrier', cy],
    ] as const) {
      assert.equal(
        (
          await server.request('POST', `/p/${project.id}/api/posts`, {
            headers: project.admin,
            body: { title, owner: owner.user.id },
          })
        ).status,
        201,
      );
    }
    const titled = (title: string) => (e: SseEvent) => e.json?.record?.title === title;
    assert.deepEqual(
      (await adaStream.before(titled('red barrier'))).map((e) => [e.json.action, e.json.record.title]),
      [
        ['create', 'red news'],
        ['delete', 'red news'],
      ],
    );
    assert.deepEqual(
      (await cyStream.before(titled('blue barrier'))).map((e) => [e.json.action, e.json.record.title]),
      [['create', 'blue news']],
    );
  });
});
