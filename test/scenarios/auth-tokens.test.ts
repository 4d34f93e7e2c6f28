/**
 * Scenarios for access and refresh tokens: every way a bearer token can be wrong, expiry on
 * a fake clock, and refresh-token reuse detection. Forged tokens are built with jose and
 * the project's real secret, so the checks after the signature are exercised too.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { assertError } from '../helpers/assert-error.js';
import {
  bearer,
  createAuthProject,
  jwtPayload,
  jwtSecretOf,
  logIn,
  patchSettings,
  signUp,
  type SignedUp,
} from '../helpers/auth-fixtures.js';
import { startTestServer, TestClock, type TestProject, type TestServer } from '../helpers/test-server.js';

const clock = new TestClock();
let server: TestServer;
let project: TestProject;
let other: TestProject;
let ada: SignedUp;
let bob: SignedUp;

before(async () => {
  server = await startTestServer({}, { clock });
  project = await createAuthProject(server);
  other = await createAuthProject(server);
  ada = await signUp(server, project, 'ada@example.com');
  bob = await signUp(server, project, 'bob@example.com');
});
after(() => server.close());

const me = (token: string, target: TestProject = project) =>
  server.request('GET', `/p/${target.id}/auth/me`, { headers: bearer(token) });
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs claims like Rowbase does, with a chosen algorithm and key. */
async function forge(
  claims: Record<string, unknown>,
  options: { alg?: string; key?: Uint8Array | CryptoKey | import('node:crypto').KeyObject } = {},
): Promise<string> {
  const key = options.key ?? new TextEncoder().encode(await jwtSecretOf(server, project));
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(key);
}

describe('bearer tokens that must fail', () => {
  const cases: [string, () => Promise<string>, string][] = [
    [
      'payload tampered (sub swapped to another user) → 401 AUTH_INVALID_TOKEN',
      async () => {
        const [header, , signature] = ada.token.split('.');
        return `${header}.${b64({ ...jwtPayload(ada.token), sub: bob.user.id })}.${signature}`;
      },
      'AUTH_INVALID_TOKEN',
    ],
    [
      'signature tampered → 401 AUTH_INVALID_TOKEN',
      async () => {
        const [header, payload, signature] = ada.token.split('.');
        return `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
      },
      'AUTH_INVALID_TOKEN',
    ],
    [
      'alg: none with no signature → 401 AUTH_INVALID_TOKEN',
      async () => `${b64({ alg: 'none', typ: 'JWT' })}.${ada.token.split('.')[1]}.`,
      'AUTH_INVALID_TOKEN',
    ],
    [
      'HS512 with the project secret → 401 AUTH_INVALID_TOKEN',
      async () => forge(jwtPayload(ada.token), { alg: 'HS512' }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      'RS256 with a key of the attacker → 401 AUTH_INVALID_TOKEN',
      async () => {
        const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        return forge(jwtPayload(ada.token), { alg: 'RS256', key: privateKey });
      },
      'AUTH_INVALID_TOKEN',
    ],
    [
      'HS256 signed with another secret → 401 AUTH_INVALID_TOKEN',
      async () => forge(jwtPayload(ada.token), { key: new TextEncoder().encode('guessed-secret') }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      'right secret, another project in the claims → 401 AUTH_INVALID_TOKEN',
      async () => forge({ ...jwtPayload(ada.token), project: other.id }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      'right secret, a session that does not exist → 401 AUTH_INVALID_TOKEN',
      async () => forge({ ...jwtPayload(ada.token), sid: '00000000-0000-7000-8000-000000000000' }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      "right secret, bob as subject of ada's session → 401 AUTH_INVALID_TOKEN",
      async () => forge({ ...jwtPayload(ada.token), sub: bob.user.id }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      'right secret, a future password version → 401 AUTH_INVALID_TOKEN',
      async () => forge({ ...jwtPayload(ada.token), pv: 2 }),
      'AUTH_INVALID_TOKEN',
    ],
    [
      'right secret, no session claim → 401 AUTH_INVALID_TOKEN',
      async () => {
        const { sid: _sid, ...rest } = jwtPayload(ada.token);
        return forge(rest);
      },
      'AUTH_INVALID_TOKEN',
    ],
    [
      'right secret, no exp → 401 AUTH_INVALID_TOKEN',
      async () => {
        const { exp: _exp, ...rest } = jwtPayload(ada.token);
        return forge(rest);
      },
      'AUTH_INVALID_TOKEN',
    ],
    [
      'a genuine token of another project → 401 AUTH_INVALID_TOKEN',
      async () => (await signUp(server, other, 'ada@example.com')).token,
      'AUTH_INVALID_TOKEN',
    ],
  ];
  for (const [name, make, code] of cases) {
    it(name, async () => {
      const token = await make();
      assertError(await me(token), 401, code);
      assertError(
        await server.request('GET', `/p/${project.id}/api/users/${ada.user.id}`, { headers: bearer(token) }),
        401,
        code,
      );
    });
  }

  it('the untampered token still works (the forgeries above were the only difference)', async () => {
    assert.equal((await me(ada.token)).status, 200);
    assert.equal((await me(await forge(jwtPayload(ada.token)))).status, 200);
  });
});

describe('lifetimes on the clock', () => {
  it('claims: sub, project, sid, pv, iat, exp with exp − iat = access_token_ttl', async () => {
    const claims = jwtPayload(ada.token);
    assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'project', 'pv', 'sid', 'sub']);
    assert.equal(claims.sub, ada.user.id);
    assert.equal(claims.project, project.id);
    assert.equal(claims.pv, 1);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(JSON.parse(Buffer.from(ada.token.split('.')[0]!, 'base64url').toString()).alg, 'HS256');
  });

  it('an expired access token → 401 AUTH_TOKEN_EXPIRED (me, data API); its refresh token still mints one', async () => {
    const session = await logIn(server, project, 'bob@example.com');
    clock.advance(3601);
    assertError(await me(session.token), 401, 'AUTH_TOKEN_EXPIRED');
    assertError(
      await server.request('GET', `/p/${project.id}/api/users/${bob.user.id}`, { headers: bearer(session.token) }),
      401,
      'AUTH_TOKEN_EXPIRED',
    );
    const refreshed = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: session.refresh_token },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal((await me(refreshed.body.token)).status, 200);
  });

  it('a token already verified (remembered by the server) still expires on time', async () => {
    const session = await logIn(server, project, 'bob@example.com');
    assert.equal((await me(session.token)).status, 200);
    clock.advance(3599);
    assert.equal((await me(session.token)).status, 200);
    clock.advance(1);
    assertError(await me(session.token), 401, 'AUTH_TOKEN_EXPIRED');
    assertError(
      await server.request('GET', `/p/${project.id}/api/users/${bob.user.id}`, { headers: bearer(session.token) }),
      401,
      'AUTH_TOKEN_EXPIRED',
    );
  });

  it('a token already verified dies with a rotated JWT secret, and with its session', async () => {
    const other = await createAuthProject(server);
    const carol = await signUp(server, other, 'carol@example.com');
    const dave = await signUp(server, other, 'dave@example.com');
    assert.equal((await me(dave.token, other)).status, 200);
    const loggedOut = await server.request('POST', `/p/${other.id}/auth/logout`, {
      headers: bearer(dave.token),
      body: { refresh_token: dave.refresh_token },
    });
    assert.equal(loggedOut.status, 204, loggedOut.text);
    assertError(await me(dave.token, other), 401, 'AUTH_INVALID_TOKEN');
    assert.equal((await me(carol.token, other)).status, 200);
    const rotated = await server.request('POST', `/p/${other.id}/v1/rotate-jwt-secret`, { headers: other.admin });
    assert.equal(rotated.status, 200, rotated.text);
    assertError(await me(carol.token, other), 401, 'AUTH_INVALID_TOKEN');
  });

  it('an expired token with a tampered signature is invalid, not expired', async () => {
    const [header, payload] = ada.token.split('.');
    assertError(await me(`${header}.${payload}.${'A'.repeat(43)}`), 401, 'AUTH_INVALID_TOKEN');
  });

  it('access_token_ttl shortens new tokens; refresh past refresh_token_ttl → 401 INVALID_REFRESH_TOKEN', async () => {
    const short = await createAuthProject(server, { settings: { access_token_ttl: 60, refresh_token_ttl: 300 } });
    const user = await signUp(server, short, 'carol@example.com');
    const claims = jwtPayload(user.token);
    assert.equal(claims.exp - claims.iat, 60);
    clock.advance(61);
    assertError(await me(user.token, short), 401, 'AUTH_TOKEN_EXPIRED');
    assert.equal(
      (await server.request('POST', `/p/${short.id}/auth/refresh`, { body: { refresh_token: user.refresh_token } }))
        .status,
      200,
    );
    clock.advance(300);
    assertError(
      await server.request('POST', `/p/${short.id}/auth/refresh`, { body: { refresh_token: user.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
  });
});

describe('refresh-token reuse detection', () => {
  it('a replaced refresh token replayed within 10 s → same pair; later → 401 REUSED, session ends', async () => {
    const rotating = await createAuthProject(server, { settings: { refresh_token_rotation: true } });
    const user = await signUp(server, rotating, 'dan@example.com');
    const refresh = (token: string) =>
      server.request('POST', `/p/${rotating.id}/auth/refresh`, { body: { refresh_token: token } });
    const first = await refresh(user.refresh_token);
    assert.equal(first.status, 200);
    clock.advance(9);
    const replay = await refresh(user.refresh_token);
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, first.body);
    clock.advance(2);
    assertError(await refresh(user.refresh_token), 401, 'AUTH_REFRESH_TOKEN_REUSED');
    // The thief and the owner are both out: the newest refresh token and the access tokens die too.
    assertError(await refresh(first.body.refresh_token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    assertError(await me(first.body.token, rotating), 401, 'AUTH_INVALID_TOKEN');
    // Other sessions of the same user are untouched.
    const again = await logIn(server, rotating, 'dan@example.com');
    assert.equal((await me(again.token, rotating)).status, 200);
  });

  it('a token replaced two or more rotations ago → 401 AUTH_REFRESH_TOKEN_REUSED and the session ends', async () => {
    const rotating = await createAuthProject(server, { settings: { refresh_token_rotation: true } });
    const user = await signUp(server, rotating, 'eve@example.com');
    const refresh = (token: string) =>
      server.request('POST', `/p/${rotating.id}/auth/refresh`, { body: { refresh_token: token } });
    const chain = [user.refresh_token];
    let newest = user;
    for (let i = 0; i < 3; i++) {
      clock.advance(20);
      const next = await refresh(chain[chain.length - 1]!);
      assert.equal(next.status, 200, next.text);
      chain.push(next.body.refresh_token);
      newest = next.body;
    }
    // Within the grace period of a later rotation, too: only the immediately previous token gets the grace.
    assertError(await refresh(chain[1]!), 401, 'AUTH_REFRESH_TOKEN_REUSED');
    assertError(await refresh(chain[3]!), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    assertError(await me(newest.token, rotating), 401, 'AUTH_INVALID_TOKEN');
    // The session is gone, so its spent tokens now answer like any unknown token.
    assertError(await refresh(chain[0]!), 401, 'AUTH_INVALID_REFRESH_TOKEN');
  });

  it('the original token of a long chain, replayed much later → 401 AUTH_REFRESH_TOKEN_REUSED', async () => {
    const rotating = await createAuthProject(server, { settings: { refresh_token_rotation: true } });
    const user = await signUp(server, rotating, 'fay@example.com');
    const refresh = (token: string) =>
      server.request('POST', `/p/${rotating.id}/auth/refresh`, { body: { refresh_token: token } });
    let current = user.refresh_token;
    for (let i = 0; i < 5; i++) {
      clock.advance(3600);
      const next = await refresh(current);
      assert.equal(next.status, 200, next.text);
      current = next.body.refresh_token;
    }
    assertError(await refresh(user.refresh_token), 401, 'AUTH_REFRESH_TOKEN_REUSED');
    assertError(await refresh(current), 401, 'AUTH_INVALID_REFRESH_TOKEN');
  });

  it('after logout, a spent token of that session → 401 AUTH_INVALID_REFRESH_TOKEN (nothing to revoke)', async () => {
    const rotating = await createAuthProject(server, { settings: { refresh_token_rotation: true } });
    const user = await signUp(server, rotating, 'gus@example.com');
    const refresh = (token: string) =>
      server.request('POST', `/p/${rotating.id}/auth/refresh`, { body: { refresh_token: token } });
    const first = await refresh(user.refresh_token);
    clock.advance(20);
    const second = await refresh(first.body.refresh_token);
    assert.equal(second.status, 200, second.text);
    assert.equal(
      (await server.request('POST', `/p/${rotating.id}/auth/logout`, { headers: bearer(second.body.token) })).status,
      204,
    );
    assertError(await refresh(user.refresh_token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    assertError(await refresh(first.body.refresh_token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
  });

  it('spent tokens are forgotten when their session ends or expires (the table stays bounded)', async () => {
    const rotating = await createAuthProject(server, {
      settings: { refresh_token_rotation: true, refresh_token_ttl: 300 },
    });
    const db = await server.built.services.storage.project(rotating.id);
    const spent = () => db.count({ kind: 'count', table: '_rb_spent_refresh_tokens' });
    const refresh = async (token: string): Promise<SignedUp> => {
      clock.advance(20);
      const response = await server.request('POST', `/p/${rotating.id}/auth/refresh`, {
        body: { refresh_token: token },
      });
      assert.equal(response.status, 200, response.text);
      return response.body;
    };
    const hal = await signUp(server, rotating, 'hal@example.com');
    await refresh((await refresh(hal.refresh_token)).refresh_token);
    assert.equal(await spent(), 2);
    clock.advance(301);
    const ida = await signUp(server, rotating, 'ida@example.com');
    const idaNow = await refresh(ida.refresh_token);
    assert.equal(await spent(), 1, "hal's expired session keeps no spent tokens");
    assert.equal(
      (await server.request('POST', `/p/${rotating.id}/auth/logout`, { headers: bearer(idaNow.token) })).status,
      204,
    );
    assert.equal(await spent(), 0, 'logout forgets the spent tokens of the session');
    const joe = await signUp(server, rotating, 'joe@example.com');
    await refresh(joe.refresh_token);
    assert.equal(await spent(), 1);
    assert.equal(
      (await server.request('DELETE', `/p/${rotating.id}/api/users/${joe.user.id}`, { headers: rotating.admin }))
        .status,
      204,
    );
    assert.equal(await spent(), 0, 'deleting the user forgets the spent tokens of their sessions');
  });

  it('with rotation off, a refresh token is reusable until it expires', async () => {
    await patchSettings(server, project, { refresh_token_rotation: false });
    const session = await logIn(server, project, 'ada@example.com');
    for (let i = 0; i < 3; i++) {
      const response = await server.request('POST', `/p/${project.id}/auth/refresh`, {
        body: { refresh_token: session.refresh_token },
      });
      assert.equal(response.body.refresh_token, session.refresh_token);
      clock.advance(20);
    }
  });
});
