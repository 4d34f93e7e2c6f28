/**
 * @rowbase/client sessions against a started server whose clock the test moves: refresh ahead
 * of expiry, one refresh on AUTH_TOKEN_EXPIRED, concurrent calls sharing one refresh, a dead
 * refresh token signing the client out, and stores that survive a reload.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  localStorageStore,
  memoryStore,
  type SessionEvent,
  type StorageLike,
} from '../../packages/client/src/index.js';
import { bearer, jwtPayload, PASSWORD } from '../helpers/auth-fixtures.js';
import { assertServerError, createClientProject, recordedClient, rejection } from '../helpers/client-project.js';
import { startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

const clock = new TestClock();
let server: TestServer;
let project: TestProject;
before(async () => {
  server = await startTestServer({}, { clock });
  // access_token_ttl at its minimum (60 s): the SDK refreshes 30 s ahead, i.e. half the lifetime.
  project = await createClientProject(server, { settings: { access_token_ttl: 60 } });
  const { client } = recordedClient(server, project);
  await client.auth.signUp({ email: 'ada@example.com', password: PASSWORD });
});
after(() => server.close());

/** A client whose clock is the server's (so it refreshes ahead), signed in as ada. */
async function signedIn(options: { now?: () => number } = { now: () => clock.now() }) {
  const recorded = recordedClient(server, project, options);
  await recorded.client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
  return recorded;
}

describe('refreshing the access token', () => {
  it('a call within 30 s of expiry refreshes first (one POST /auth/refresh), then succeeds', async () => {
    const { client, sent, refreshes } = await signedIn();
    const first = client.auth.session!;
    assert.equal(first.expiresAt, clock.now() + 60_000);
    const events: SessionEvent[] = [];
    client.auth.onChange((_session, event) => events.push(event));
    clock.advance(20);
    await client.auth.me();
    assert.equal(refreshes(), 0, 'nothing to refresh 40 s before expiry');
    clock.advance(15);
    const me = await client.auth.me();
    assert.equal(me.email, 'ada@example.com');
    assert.equal(refreshes(), 1);
    assert.deepEqual(
      sent.slice(-2).map((request) => request.path),
      [`/p/${project.id}/auth/refresh`, `/p/${project.id}/auth/me`],
    );
    const next = client.auth.session!;
    assert.notEqual(next.token, first.token);
    assert.equal(
      jwtPayload(next.token).iat * 1000,
      Math.floor(clock.now() / 1000) * 1000,
      'the new token was issued now',
    );
    assert.equal(sent.at(-1)?.headers.get('authorization'), `Bearer ${next.token}`);
    assert.deepEqual(events, ['TOKEN_REFRESHED'], 'me() brought the same user: no USER_UPDATED');
  });

  it('two concurrent calls within the refresh window share one refresh', async () => {
    const { client, refreshes } = await signedIn();
    clock.advance(45);
    const [me, list] = await Promise.all([client.auth.me(), client.table('tasks').list()]);
    assert.equal(me.email, 'ada@example.com');
    assert.deepEqual(list.data, []);
    assert.equal(refreshes(), 1);
  });

  it('a token the server calls expired (SDK clock lags) → one refresh, then the call is retried', async () => {
    const { client, sent, refreshes } = await signedIn({ now: () => Date.now() });
    const old = client.auth.session!.token;
    clock.advance(120);
    const me = await client.auth.me();
    assert.equal(me.email, 'ada@example.com');
    assert.equal(refreshes(), 1);
    assert.deepEqual(
      sent.slice(-3).map((request) => request.path.split('/').slice(-2).join('/')),
      ['auth/me', 'auth/refresh', 'auth/me'],
      'the call, the refresh, the retry',
    );
    const expired = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(old) });
    assert.equal(expired.body.error.code, 'AUTH_TOKEN_EXPIRED', 'the first answer really was the expiry');
  });

  it('two concurrent calls that both meet AUTH_TOKEN_EXPIRED share one refresh, and both succeed', async () => {
    const { client, refreshes, sent } = await signedIn({ now: () => Date.now() });
    clock.advance(120);
    const results = await Promise.all([client.auth.me(), client.table('tasks').list({ limit: 1 }), client.auth.me()]);
    assert.equal(results[0].email, 'ada@example.com');
    assert.equal(results[1].meta.limit, 1);
    assert.equal(refreshes(), 1);
    assert.equal(
      sent.filter((request) => request.path.endsWith('/auth/me')).length,
      4,
      'each me() sent twice: expired, then retried',
    );
  });

  it('a call that still meets AUTH_TOKEN_EXPIRED after its one refresh throws it (no loop)', async () => {
    // The SDK clock lags and the server clock jumps again between the refresh and the retry.
    const { client, refreshes } = await signedIn({ now: () => Date.now() });
    clock.advance(120);
    const fetchThatMovesTime = recordedClient(server, project, {
      store: {
        load: () => client.auth.session,
        save: () => {},
      },
      now: () => Date.now(),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).endsWith('/auth/refresh')) clock.advance(120);
        return response;
      },
    });
    assertServerError(await rejection(fetchThatMovesTime.client.auth.me()), 401, 'AUTH_TOKEN_EXPIRED');
    assert.equal(fetchThatMovesTime.refreshes(), 1);
    assert.equal(refreshes(), 0);
  });

  it('a token invalidated by a password change elsewhere → one refresh (refresh tokens survive)', async () => {
    const { client, refreshes } = await signedIn();
    const other = await signedIn();
    await other.client.auth.changePassword(PASSWORD, 'a brand new passphrase');
    try {
      assert.equal((await client.auth.me()).email, 'ada@example.com');
      assert.equal(refreshes(), 1);
    } finally {
      await other.client.auth.changePassword('a brand new passphrase', PASSWORD);
    }
  });

  it('a refused refresh token signs the client out; the call throws AUTH_INVALID_REFRESH_TOKEN', async () => {
    const { client } = await signedIn();
    const events: SessionEvent[] = [];
    client.auth.onChange((_session, event) => events.push(event));
    // Ended elsewhere: the access token and the refresh token both stop working.
    await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(client.auth.session!.token) });
    assertServerError(await rejection(client.table('tasks').list()), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    assert.equal(client.auth.session, null);
    assert.deepEqual(events, ['SIGNED_OUT']);
    const anonymous = await client.table('tasks').list();
    assert.deepEqual(anonymous.data, [], 'signed out, the client goes on with the pk_ key');
  });

  it('refresh() by hand stores the new pair; with rotation the refresh token changes too', async () => {
    const { client, refreshes } = await signedIn();
    const first = client.auth.session!;
    clock.advance(1);
    const plain = await client.auth.refresh();
    assert.equal(plain.refreshToken, first.refreshToken, 'same refresh token without rotation');
    assert.notEqual(plain.token, first.token);
    const rotating = await createClientProject(server, { settings: { refresh_token_rotation: true } });
    const { client: rotated } = recordedClient(server, rotating, { now: () => clock.now() });
    const { session } = await rotated.auth.signUp({ email: 'rot@example.com', password: PASSWORD });
    const next = await rotated.auth.refresh();
    assert.notEqual(next.refreshToken, session.refreshToken);
    assert.deepEqual(rotated.auth.session, next);
    assert.equal(refreshes(), 1);
  });

  it('signing out while a refresh is on its way: the late answer does not sign the client back in', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { client } = recordedClient(server, project, {
      now: () => clock.now(),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).endsWith('/auth/refresh')) await held;
        return response;
      },
    });
    await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const refreshing = rejection(client.auth.refresh());
    await client.auth.signOut();
    release();
    const error = await refreshing;
    assert.equal(error.code, 'NOT_SIGNED_IN');
    assert.equal(client.auth.session, null);
  });

  it('refresh() signed out → RowbaseError NOT_SIGNED_IN, no request sent', async () => {
    const { client, sent } = recordedClient(server, project);
    const error = await rejection(client.auth.refresh());
    assert.equal(error.code, 'NOT_SIGNED_IN');
    assert.equal(error.status, 0);
    assert.equal(sent.length, 0);
  });
});

describe('session stores', () => {
  it('a new client over the same store (a reload) starts signed in and its token works', async () => {
    const store = memoryStore();
    const first = recordedClient(server, project, { store });
    await first.client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const reloaded = recordedClient(server, project, { store });
    assert.deepEqual(reloaded.client.auth.session, first.client.auth.session);
    assert.equal((await reloaded.client.auth.me()).email, 'ada@example.com');
  });

  it('localStorageStore keeps the session as JSON under its key; a reload reads it; sign-out removes it', async () => {
    const items = new Map<string, string>();
    const storage: StorageLike = {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => void items.set(key, value),
      removeItem: (key) => void items.delete(key),
    };
    const { client } = recordedClient(server, project, { store: localStorageStore('demo.session', storage) });
    await client.auth.signIn({ email: 'ada@example.com', password: PASSWORD });
    const saved = JSON.parse(items.get('demo.session')!);
    assert.deepEqual(Object.keys(saved).sort(), ['expiresAt', 'refreshToken', 'token', 'user']);
    const { client: reloaded } = recordedClient(server, project, { store: localStorageStore('demo.session', storage) });
    assert.equal((await reloaded.auth.me()).email, 'ada@example.com');
    await reloaded.auth.signOut();
    assert.equal(items.has('demo.session'), false);
  });

  it('a malformed stored session counts as signed out', () => {
    const storage: StorageLike = { getItem: () => '{"token": 42', setItem: () => {}, removeItem: () => {} };
    const { client } = recordedClient(server, project, { store: localStorageStore(undefined, storage) });
    assert.equal(client.auth.session, null);
  });

  it('localStorageStore without localStorage (Node) throws a TypeError at once', () => {
    assert.throws(() => localStorageStore(), TypeError);
  });
});
