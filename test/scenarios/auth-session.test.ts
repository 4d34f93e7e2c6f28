/**
 * Scenarios for signup, login, refresh, me and logout (contract §5), over HTTP against a
 * started server. Argon2 is slow on purpose, so users are shared where scenarios allow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { bearer, createAuthProject, logIn, patchSettings, PASSWORD, signUp } from '../helpers/auth-fixtures.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

describe('POST /p/{id}/auth/signup', () => {
  let project: TestProject;
  before(async () => {
    project = await createAuthProject(server, {
      columns: [
        { name: 'name', type: 'text', max_length: 50 },
        { name: 'role', type: 'text', default: 'member' },
      ],
      // A project that stops users choosing their own role: signup obeys the create rule.
      rules: { create: "@request.body.role = null || @request.body.role = 'member'" },
    });
  });

  it('201 {token, refresh_token, user}: custom columns stored, email lower-cased, no secrets', async () => {
    const response = await server.request('POST', `/p/${project.id}/auth/signup`, {
      body: { email: 'Ada@Example.COM', password: PASSWORD, name: 'Ada' },
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['refresh_token', 'token', 'user']);
    const { user } = response.body;
    assert.deepEqual(Object.keys(user).sort(), [
      'created_at',
      'email',
      'email_verified',
      'id',
      'name',
      'role',
      'updated_at',
    ]);
    assert.equal(user.email, 'ada@example.com');
    assert.equal(user.email_verified, false);
    assert.equal(user.name, 'Ada');
    assert.equal(user.role, 'member');
    assert.doesNotMatch(response.text, /argon2|password/);
    const me = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(response.body.token) });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { user });
    const stored = await server.request('GET', `/p/${project.id}/api/users/${user.id}`, { headers: project.admin });
    assert.equal(stored.body.data.name, 'Ada');
  });

  const refused: [string, unknown, number, string][] = [
    [
      'taken email, other case → 409 AUTH_EMAIL_TAKEN',
      { email: 'ADA@example.com', password: PASSWORD },
      409,
      'AUTH_EMAIL_TAKEN',
    ],
    [
      'password of 7 characters → 400 VALIDATION_PASSWORD',
      { email: 'short@example.com', password: '1234567' },
      400,
      'VALIDATION_PASSWORD',
    ],
    [
      'password of 257 characters → 400 VALIDATION_PASSWORD',
      { email: 'long@example.com', password: 'x'.repeat(257) },
      400,
      'VALIDATION_PASSWORD',
    ],
    [
      'password as a number → 400 VALIDATION_FAILED',
      { email: 'num@example.com', password: 12345678 },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'password as an object → 400 VALIDATION_FAILED',
      { email: 'obj@example.com', password: { $ne: '' } },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'email as an array → 400 VALIDATION_FAILED',
      { email: ['a@example.com'], password: PASSWORD },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'email not an address → 400 VALIDATION_FAILED',
      { email: 'not-an-email', password: PASSWORD },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'email of 255 characters → 400 VALIDATION_FAILED',
      { email: `${'a'.repeat(243)}@example.com`, password: PASSWORD },
      400,
      'VALIDATION_FAILED',
    ],
    ['missing password → 400 VALIDATION_FAILED', { email: 'nopass@example.com' }, 400, 'VALIDATION_FAILED'],
    [
      'email_verified in the body → 400 VALIDATION_FAILED',
      { email: 'ev@example.com', password: PASSWORD, email_verified: true },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'id in the body → 400 VALIDATION_FAILED',
      { email: 'id@example.com', password: PASSWORD, id: 'chosen' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'unknown column → 400 VALIDATION_UNKNOWN_COLUMN',
      { email: 'col@example.com', password: PASSWORD, nickname: 'x' },
      400,
      'VALIDATION_UNKNOWN_COLUMN',
    ],
    [
      'custom column breaking its max_length → 400 VALIDATION_FAILED',
      { email: 'ml@example.com', password: PASSWORD, name: 'n'.repeat(51) },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'choosing role admin against the create rule → 403 FORBIDDEN',
      { email: 'boss@example.com', password: PASSWORD, role: 'admin' },
      403,
      'FORBIDDEN',
    ],
    [
      'a JSON array body → 400 VALIDATION_FAILED',
      [{ email: 'arr@example.com', password: PASSWORD }],
      400,
      'VALIDATION_FAILED',
    ],
  ];
  for (const [name, body, status, code] of refused) {
    it(name, async () => {
      assertError(await server.request('POST', `/p/${project.id}/auth/signup`, { body }), status, code);
    });
  }

  it('nothing refused above was written', async () => {
    const list = await server.request('GET', `/p/${project.id}/api/users`, { headers: project.admin });
    assert.deepEqual(
      list.body.data.map((u: { email: string }) => u.email),
      ['ada@example.com'],
    );
  });

  it('a 256-character password (counted in characters, not bytes) is accepted and not truncated', async () => {
    const password = '密'.repeat(256);
    await signUp(server, project, 'cjk@example.com', {}, password);
    await logIn(server, project, 'cjk@example.com', password);
    const truncated = await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'cjk@example.com', password: '密'.repeat(255) },
    });
    assertError(truncated, 401, 'AUTH_INVALID_CREDENTIALS');
  });

  it('min_password_length raises the minimum → 400 VALIDATION_PASSWORD', async () => {
    const strict = await createAuthProject(server, { settings: { min_password_length: 12 } });
    const response = await server.request('POST', `/p/${strict.id}/auth/signup`, {
      body: { email: 'a@example.com', password: 'elevenchars' },
    });
    assertError(response, 400, 'VALIDATION_PASSWORD');
  });

  it('a project without an auth table → 404 AUTH_NOT_CONFIGURED on every auth endpoint', async () => {
    const plain = await createProject(server);
    await putTable(server, plain, 'notes', { columns: [{ name: 'body', type: 'text' }] });
    const calls: [string, string][] = [
      ['POST', 'signup'],
      ['POST', 'login'],
      ['POST', 'refresh'],
      ['GET', 'me'],
      ['POST', 'logout'],
      ['POST', 'change-password'],
      ['POST', 'forgot-password'],
      ['POST', 'reset-password'],
      ['GET', 'verify?token=x'],
      ['POST', 'resend-verification'],
    ];
    for (const [method, path] of calls) {
      const response = await server.request(
        method,
        `/p/${plain.id}/auth/${path}`,
        method === 'POST' ? { body: {} } : {},
      );
      assertError(response, 404, 'AUTH_NOT_CONFIGURED');
    }
  });

  it('an unknown project → 404 PROJECT_NOT_FOUND', async () => {
    assertError(
      await server.request('POST', '/p/no-such-project/auth/signup', {
        body: { email: 'a@example.com', password: PASSWORD },
      }),
      404,
      'PROJECT_NOT_FOUND',
    );
  });
});

describe('POST /p/{id}/auth/signup: a create rule decides before a taken email can show', () => {
  let invite: TestProject;
  let domain: TestProject;
  const signup = (target: TestProject, body: Record<string, unknown>) =>
    server.request('POST', `/p/${target.id}/auth/signup`, { body: { password: PASSWORD, ...body } });
  before(async () => {
    invite = await createAuthProject(server, {
      columns: [{ name: 'invite', type: 'text' }],
      rules: { create: "@request.body.invite = 's3cret'" },
    });
    await signUp(server, invite, 'member@example.com', { invite: 's3cret' });
    // A rule on the stored row's own email column: the check must see the email as sent.
    domain = await createAuthProject(server, { rules: { create: "email ~ '@acme.com'" } });
    await signUp(server, domain, 'staff@acme.com');
  });

  const cases: [string, () => [TestProject, Record<string, unknown>], number, string][] = [
    [
      'taken email, wrong invite → 403 FORBIDDEN',
      () => [invite, { email: 'member@example.com', invite: 'guess' }],
      403,
      'FORBIDDEN',
    ],
    ['taken email, no invite → 403 FORBIDDEN', () => [invite, { email: 'MEMBER@example.com' }], 403, 'FORBIDDEN'],
    [
      'unknown email, wrong invite → 403 FORBIDDEN',
      () => [invite, { email: 'stranger@example.com', invite: 'guess' }],
      403,
      'FORBIDDEN',
    ],
    [
      'taken email, right invite → 409 AUTH_EMAIL_TAKEN',
      () => [invite, { email: 'member@example.com', invite: 's3cret' }],
      409,
      'AUTH_EMAIL_TAKEN',
    ],
    [
      'rule on the email column: a taken email that satisfies it → 409 AUTH_EMAIL_TAKEN',
      () => [domain, { email: 'staff@acme.com' }],
      409,
      'AUTH_EMAIL_TAKEN',
    ],
    [
      'rule on the email column: an unknown email outside it → 403 FORBIDDEN',
      () => [domain, { email: 'staff@other.com' }],
      403,
      'FORBIDDEN',
    ],
  ];
  for (const [name, make, status, code] of cases) {
    it(name, async () => {
      const [target, body] = make();
      assertError(await signup(target, body), status, code);
    });
  }

  it('a refused caller gets the same answer for a taken and an unknown email', async () => {
    const taken = await signup(invite, { email: 'member@example.com', invite: 'guess' });
    const unknown = await signup(invite, { email: 'nobody@example.com', invite: 'guess' });
    assert.deepEqual([taken.status, taken.body], [unknown.status, unknown.body]);
  });

  it('the checks changed nothing: the member still signs in, only the two real users exist', async () => {
    await logIn(server, invite, 'member@example.com');
    await logIn(server, domain, 'staff@acme.com');
    const list = await server.request('GET', `/p/${invite.id}/api/users`, { headers: invite.admin });
    assert.deepEqual(
      list.body.data.map((u: { email: string }) => u.email),
      ['member@example.com'],
    );
  });
});

describe('POST /p/{id}/auth/login', () => {
  let project: TestProject;
  before(async () => {
    project = await createAuthProject(server);
    await signUp(server, project, 'grace@example.com', { name: 'Grace' });
  });

  it('200 {token, refresh_token, user} with any case of the email', async () => {
    const response = await server.request('POST', `/p/${project.id}/auth/login`, {
      body: { email: 'GRACE@example.com', password: PASSWORD },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['refresh_token', 'token', 'user']);
    assert.equal(response.body.user.email, 'grace@example.com');
    assert.equal(response.body.user.name, 'Grace');
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(response.body.token) })).status,
      200,
    );
  });

  it('unknown email and wrong password: the same 401 AUTH_INVALID_CREDENTIALS body, in about equal time', async () => {
    const timed = async (body: object) => {
      const start = performance.now();
      const response = await server.request('POST', `/p/${project.id}/auth/login`, { body });
      return { response, ms: performance.now() - start };
    };
    // Warm up both paths once, then take the fastest of three of each.
    const unknownRuns = [];
    const wrongRuns = [];
    for (let i = 0; i < 3; i++) {
      unknownRuns.push(await timed({ email: 'nobody@example.com', password: PASSWORD }));
      wrongRuns.push(await timed({ email: 'grace@example.com', password: 'wrong password!' }));
    }
    assertError(unknownRuns[0]!.response, 401, 'AUTH_INVALID_CREDENTIALS');
    assertError(wrongRuns[0]!.response, 401, 'AUTH_INVALID_CREDENTIALS');
    assert.equal(unknownRuns[0]!.response.text, wrongRuns[0]!.response.text);
    const unknown = Math.min(...unknownRuns.map((r) => r.ms));
    const wrong = Math.min(...wrongRuns.map((r) => r.ms));
    // Both paths run one argon2 verify; a missing dummy verify would make unknown emails ~50 ms faster.
    assert.ok(
      unknown * 3 > wrong,
      `unknown email took ${unknown.toFixed(1)} ms, wrong password ${wrong.toFixed(1)} ms`,
    );
  });

  const malformed: [string, unknown][] = [
    ['email as an object', { email: { $gt: '' }, password: PASSWORD }],
    ['email as an array', { email: ['grace@example.com'], password: PASSWORD }],
    ['email as a number', { email: 42, password: PASSWORD }],
    ['password as an object', { email: 'grace@example.com', password: { $ne: null } }],
    ['password as true', { email: 'grace@example.com', password: true }],
    ['password missing', { email: 'grace@example.com' }],
    ['an extra field', { email: 'grace@example.com', password: PASSWORD, admin: true }],
    ['a string body', 'grace@example.com'],
  ];
  for (const [name, body] of malformed) {
    it(`${name} → 400 VALIDATION_FAILED, never a 500 or a match`, async () => {
      assertError(await server.request('POST', `/p/${project.id}/auth/login`, { body }), 400, 'VALIDATION_FAILED');
    });
  }

  it('require_verified_email: wrong password still 401 first; right one → 403 AUTH_EMAIL_NOT_VERIFIED', async () => {
    const strict = await createAuthProject(server, { settings: { require_verified_email: true } });
    await signUp(server, strict, 'unverified@example.com');
    assertError(
      await server.request('POST', `/p/${strict.id}/auth/login`, {
        body: { email: 'unverified@example.com', password: 'wrong password!' },
      }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    assertError(
      await server.request('POST', `/p/${strict.id}/auth/login`, {
        body: { email: 'unverified@example.com', password: PASSWORD },
      }),
      403,
      'AUTH_EMAIL_NOT_VERIFIED',
    );
    const users = await server.request('GET', `/p/${strict.id}/api/users`, { headers: strict.admin });
    await server.request('PATCH', `/p/${strict.id}/api/users/${users.body.data[0].id}`, {
      headers: strict.admin,
      body: { email_verified: true },
    });
    await logIn(server, strict, 'unverified@example.com');
  });

  it("require_verified_email: unverified user's refresh → 403; verified, the same token works", async () => {
    const strict = await createAuthProject(server, {
      settings: { require_verified_email: true, refresh_token_rotation: true },
    });
    const user = await signUp(server, strict, 'pending@example.com');
    const refresh = () =>
      server.request('POST', `/p/${strict.id}/auth/refresh`, { body: { refresh_token: user.refresh_token } });
    assertError(await refresh(), 403, 'AUTH_EMAIL_NOT_VERIFIED');
    assertError(await refresh(), 403, 'AUTH_EMAIL_NOT_VERIFIED');
    const verified = await server.request('PATCH', `/p/${strict.id}/api/users/${user.user.id}`, {
      headers: strict.admin,
      body: { email_verified: true },
    });
    assert.equal(verified.status, 200, verified.text);
    const refreshed = await refresh();
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.body.refresh_token, user.refresh_token);
  });
});

describe('POST /p/{id}/auth/refresh, GET me, POST logout', () => {
  let project: TestProject;
  before(async () => {
    project = await createAuthProject(server);
    await signUp(server, project, 'linus@example.com');
  });

  it('refresh → 200 {token, refresh_token}: a working access token and the same refresh token', async () => {
    const session = await logIn(server, project, 'linus@example.com');
    const response = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: session.refresh_token },
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['refresh_token', 'token']);
    assert.equal(response.body.refresh_token, session.refresh_token);
    assert.equal(
      (await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(response.body.token) })).status,
      200,
    );
  });

  const badRefresh: [string, unknown, number, string][] = [
    [
      'an unknown refresh token → 401 AUTH_INVALID_REFRESH_TOKEN',
      { refresh_token: 'x'.repeat(43) },
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    ],
    [
      'an access token as refresh token → 401 AUTH_INVALID_REFRESH_TOKEN',
      { refresh_token: 'eyJhbGciOiJIUzI1NiJ9.e30.x' },
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    ],
    ['refresh_token as an object → 400 VALIDATION_FAILED', { refresh_token: { $ne: '' } }, 400, 'VALIDATION_FAILED'],
    ['refresh_token as an array → 400 VALIDATION_FAILED', { refresh_token: ['a'] }, 400, 'VALIDATION_FAILED'],
    ['refresh_token as a number → 400 VALIDATION_FAILED', { refresh_token: 1 }, 400, 'VALIDATION_FAILED'],
    ['no refresh_token → 400 VALIDATION_FAILED', {}, 400, 'VALIDATION_FAILED'],
  ];
  for (const [name, body, status, code] of badRefresh) {
    it(name, async () => {
      assertError(await server.request('POST', `/p/${project.id}/auth/refresh`, { body }), status, code);
    });
  }

  const badBearer: [string, Record<string, string>, string][] = [
    ['no Authorization header → 401 AUTH_REQUIRED', {}, 'AUTH_REQUIRED'],
    ['Basic scheme → 401 AUTH_INVALID_TOKEN', { authorization: 'Basic dXNlcjpwYXNz' }, 'AUTH_INVALID_TOKEN'],
    ['garbage token → 401 AUTH_INVALID_TOKEN', { authorization: 'Bearer not.a.jwt' }, 'AUTH_INVALID_TOKEN'],
    ['the admin key as bearer → 401 AUTH_INVALID_TOKEN', {}, 'AUTH_INVALID_TOKEN'],
  ];
  for (const [name, headers, code] of badBearer) {
    for (const [method, path] of [
      ['GET', 'me'],
      ['POST', 'logout'],
    ] as const) {
      it(`${method} ${path}: ${name}`, async () => {
        const sent = name.startsWith('the admin key') ? bearer(project.adminKey) : headers;
        assertError(await server.request(method, `/p/${project.id}/auth/${path}`, { headers: sent }), 401, code);
      });
    }
  }

  it("logout → 204; that session's access and refresh tokens stop working, other sessions do not", async () => {
    const a = await logIn(server, project, 'linus@example.com');
    const b = await logIn(server, project, 'linus@example.com');
    const out = await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(a.token) });
    assert.equal(out.status, 204);
    assert.equal(out.text, '');
    const ended = await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(a.token) });
    assertError(ended, 401, 'AUTH_INVALID_TOKEN');
    assert.ok(
      ended.body.error.suggestion.includes(`POST /p/${project.id}/auth/login`),
      `the suggestion names the real project id: ${ended.body.error.suggestion}`,
    );
    assertError(
      await server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: a.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
    assertError(
      await server.request('POST', `/p/${project.id}/auth/logout`, { headers: bearer(a.token) }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    assert.equal((await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(b.token) })).status, 200);
    assert.equal(
      (await server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: b.refresh_token } }))
        .status,
      200,
    );
  });

  it('a refresh token of another project → 401 AUTH_INVALID_REFRESH_TOKEN', async () => {
    const other = await createAuthProject(server);
    const session = await logIn(server, project, 'linus@example.com');
    assertError(
      await server.request('POST', `/p/${other.id}/auth/refresh`, { body: { refresh_token: session.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
  });

  it('deleting the user ends their sessions', async () => {
    const temp = await signUp(server, project, 'temp@example.com');
    const deleted = await server.request('DELETE', `/p/${project.id}/api/users/${temp.user.id}`, {
      headers: project.admin,
    });
    assert.equal(deleted.status, 204);
    assertError(
      await server.request('GET', `/p/${project.id}/auth/me`, { headers: bearer(temp.token) }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    assertError(
      await server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: temp.refresh_token } }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
  });
});

describe('refresh-token rotation (refresh_token_rotation: true)', () => {
  let project: TestProject;
  before(async () => {
    project = await createAuthProject(server);
    await signUp(server, project, 'rot@example.com');
    await patchSettings(server, project, { refresh_token_rotation: true });
  });

  it('each refresh returns a new refresh token; the next refresh uses it', async () => {
    const session = await logIn(server, project, 'rot@example.com');
    const first = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: session.refresh_token },
    });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.refresh_token, session.refresh_token);
    const second = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: first.body.refresh_token },
    });
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refresh_token, first.body.refresh_token);
  });

  it('two tabs refreshing with one token at once both get the same new pair and stay signed in', async () => {
    const session = await logIn(server, project, 'rot@example.com');
    const [a, b] = await Promise.all([
      server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: session.refresh_token } }),
      server.request('POST', `/p/${project.id}/auth/refresh`, { body: { refresh_token: session.refresh_token } }),
    ]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(a.body, b.body);
    const next = await server.request('POST', `/p/${project.id}/auth/refresh`, {
      body: { refresh_token: a.body.refresh_token },
    });
    assert.equal(next.status, 200);
  });
});
