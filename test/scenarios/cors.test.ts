/**
 * Scenarios for CORS (contract §8) over real HTTP: the `cors_origins` cases (`["*"]`, a
 * listed origin, an unlisted one, `[]`), error answers that a page can read (401, 404, 413,
 * 415, 400, 429), preflights of every method without credentials, and platform and admin
 * paths that never carry an `Access-Control-Allow-*` header.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assert-error.js';
import { createAuthProject, patchSettings, PASSWORD } from '../helpers/auth-fixtures.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const EVIL = 'https://evil.example';

let server: TestServer;
/** Default setting `["*"]`, with an auth table. */
let star: TestProject;
/** `cors_origins: [APP, DEV]`, no auth table. */
let listed: TestProject;
/** `cors_origins: []`. */
let none: TestProject;
let rowId: string;

const OPEN_RULES = { list: '', view: '', create: '', update: '', delete: '' };

before(async () => {
  server = await startTestServer();
  star = await createAuthProject(server);
  listed = await createProject(server);
  none = await createProject(server);
  for (const project of [star, listed, none]) {
    await putTable(server, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: OPEN_RULES });
  }
  await patchSettings(server, listed, { cors_origins: [APP, DEV] });
  await patchSettings(server, none, { cors_origins: [] });
  const created = await server.request('POST', `/p/${listed.id}/api/notes`, {
    headers: listed.anon,
    body: { title: 'a' },
  });
  assert.equal(created.status, 201, created.text);
  rowId = created.body.data.id;
});
after(() => server.close());

/** The names of the response's `Access-Control-*` headers. */
function corsHeaderNames(response: TestResponse): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

/** Splits a comma-separated header into lower-case items. */
function items(response: TestResponse, name: string): string[] {
  return (response.headers.get(name) ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}

/** Asserts an actual answer a page on another origin may read, with `allowed` as Allow-Origin. */
function assertAllowed(response: TestResponse, allowed: string): void {
  assert.equal(response.headers.get('access-control-allow-origin'), allowed, `${response.status} ${response.text}`);
  const exposed = items(response, 'access-control-expose-headers');
  assert.ok(exposed.includes('retry-after') && exposed.includes('x-request-id'), `Expose-Headers: ${exposed}`);
  assert.equal(response.headers.get('access-control-allow-credentials'), null);
  if (allowed !== '*') assert.ok(items(response, 'vary').includes('origin'), `Vary: ${response.headers.get('vary')}`);
}

/** Asserts an answer carrying no `Access-Control-Allow-*` header at all (the browser refuses it). */
function assertRefused(response: TestResponse): void {
  const allowHeaders = corsHeaderNames(response).filter((name) => name.startsWith('access-control-allow-'));
  assert.deepEqual(allowHeaders, [], `${response.status} ${response.text}`);
}

const get = (project: TestProject, path: string, headers: Record<string, string>) =>
  server.request('GET', `/p/${project.id}${path}`, { headers });

describe('actual requests: the cors_origins cases', () => {
  const cases: [string, () => TestProject, string, string | undefined][] = [
    ['["*"] (the default), any origin → Allow-Origin: *', () => star, EVIL, '*'],
    ['["*"], the origin "null" of a sandboxed page → Allow-Origin: *', () => star, 'null', '*'],
    ['a listed origin → that origin and Vary: Origin', () => listed, APP, APP],
    ['the other listed origin (http, with a port) → that origin', () => listed, DEV, DEV],
    ['an unlisted origin → no Access-Control-Allow-* header', () => listed, EVIL, undefined],
    ['a listed origin with another port → refused', () => listed, 'https://app.example.com:8443', undefined],
    ['a listed origin over http instead of https → refused', () => listed, 'http://app.example.com', undefined],
    ['[] → no Access-Control-Allow-* header, even for an origin listed elsewhere', () => none, APP, undefined],
  ];
  for (const [name, project, origin, allowed] of cases) {
    it(`${name} (200 list)`, async () => {
      const response = await get(project(), '/api/notes', { ...project().anon, origin });
      assert.equal(response.status, 200, response.text);
      if (allowed === undefined) assertRefused(response);
      else assertAllowed(response, allowed);
    });
  }

  it('a refused origin on a listed project still gets Vary: Origin (the answer depends on it)', async () => {
    const response = await get(listed, '/api/notes', { ...listed.anon, origin: EVIL });
    assert.ok(items(response, 'vary').includes('origin'));
  });

  it('no Origin header → no CORS header and no Vary, whatever the setting', async () => {
    for (const project of [star, listed, none]) {
      const response = await get(project, '/api/notes', project.anon);
      assert.equal(response.status, 200);
      assert.deepEqual(corsHeaderNames(response), []);
      assert.equal(response.headers.get('vary'), null);
    }
  });

  it('every method of the data API: GET row, POST, PATCH, DELETE, bulk → allowed for a listed origin', async () => {
    const headers = { ...listed.anon, origin: APP };
    const created = await server.request('POST', `/p/${listed.id}/api/notes`, { headers, body: { title: 'b' } });
    assert.equal(created.status, 201);
    assertAllowed(created, APP);
    const id = created.body.data.id;
    const answers = [
      await server.request('GET', `/p/${listed.id}/api/notes/${id}`, { headers }),
      await server.request('PATCH', `/p/${listed.id}/api/notes/${id}`, { headers, body: { title: 'c' } }),
      await server.request('POST', `/p/${listed.id}/api/notes/bulk`, { headers, body: [{ title: 'd' }] }),
      await server.request('DELETE', `/p/${listed.id}/api/notes/${id}`, { headers }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 201, 204],
    );
    for (const answer of answers) assertAllowed(answer, APP);
  });

  it('auth endpoints: signup and login from a page → allowed', async () => {
    const signup = await server.request('POST', `/p/${star.id}/auth/signup`, {
      headers: { origin: APP },
      body: { email: 'page@example.com', password: PASSWORD },
    });
    assert.equal(signup.status, 201, signup.text);
    assertAllowed(signup, '*');
    const login = await server.request('POST', `/p/${star.id}/auth/login`, {
      headers: { origin: APP },
      body: { email: 'page@example.com', password: PASSWORD },
    });
    assert.equal(login.status, 200);
    assertAllowed(login, '*');
  });

  it('a change of cors_origins applies to the next request', async () => {
    const project = await createProject(server);
    await putTable(server, project, 'notes', { columns: [{ name: 'title', type: 'text' }], rules: OPEN_RULES });
    assertAllowed(await get(project, '/api/notes', { ...project.anon, origin: EVIL }), '*');
    await patchSettings(server, project, { cors_origins: [APP] });
    assertRefused(await get(project, '/api/notes', { ...project.anon, origin: EVIL }));
    assertAllowed(await get(project, '/api/notes', { ...project.anon, origin: APP }), APP);
    await patchSettings(server, project, { cors_origins: [] });
    assertRefused(await get(project, '/api/notes', { ...project.anon, origin: APP }));
  });
});

describe('error answers carry the same headers', () => {
  const big = JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) });
  const errors: [string, () => Promise<TestResponse>, number, string, string][] = [
    ['no credentials → 401 AUTH_REQUIRED', () => get(listed, '/api/notes', { origin: APP }), 401, 'AUTH_REQUIRED', APP],
    [
      'a wrong key → 401 AUTH_INVALID_KEY',
      () => get(listed, '/api/notes', { origin: APP, 'x-api-key': 'pk_wrong' }),
      401,
      'AUTH_INVALID_KEY',
      APP,
    ],
    [
      'a bad bearer token → 401 AUTH_INVALID_TOKEN',
      () => get(star, '/auth/me', { origin: APP, authorization: 'Bearer nope' }),
      401,
      'AUTH_INVALID_TOKEN',
      '*',
    ],
    [
      'an unknown row → 404 ROW_NOT_FOUND',
      () => get(listed, '/api/notes/no-such-row', { ...listed.anon, origin: APP }),
      404,
      'ROW_NOT_FOUND',
      APP,
    ],
    [
      'an unknown table → 404 TABLE_NOT_FOUND',
      () => get(listed, '/api/nope', { ...listed.anon, origin: APP }),
      404,
      'TABLE_NOT_FOUND',
      APP,
    ],
    [
      'a bad filter → 400 VALIDATION_FILTER',
      () => get(listed, '/api/notes?filter=nope%20%3D%201', { ...listed.anon, origin: APP }),
      400,
      'VALIDATION_FILTER',
      APP,
    ],
    [
      'a path no route matches → 404 NOT_FOUND',
      () => get(listed, `/api/notes/${rowId}/extra`, { ...listed.anon, origin: APP }),
      404,
      'NOT_FOUND',
      APP,
    ],
    [
      'a URL the router cannot decode → 400 BAD_REQUEST',
      () => get(listed, '/api/notes/%zz', { ...listed.anon, origin: APP }),
      400,
      'BAD_REQUEST',
      APP,
    ],
    [
      'an unknown project → 404 PROJECT_NOT_FOUND with Allow-Origin: *',
      () => server.request('GET', '/p/no-such-project/api/notes', { headers: { origin: EVIL } }),
      404,
      'PROJECT_NOT_FOUND',
      '*',
    ],
    [
      'auth on a project without an auth table → 404 AUTH_NOT_CONFIGURED',
      () =>
        server.request('POST', `/p/${listed.id}/auth/login`, {
          headers: { origin: APP },
          body: { email: 'a@example.com', password: PASSWORD },
        }),
      404,
      'AUTH_NOT_CONFIGURED',
      APP,
    ],
    [
      'wrong credentials at login → 401 AUTH_INVALID_CREDENTIALS',
      () =>
        server.request('POST', `/p/${star.id}/auth/login`, {
          headers: { origin: APP },
          body: { email: 'nobody@example.com', password: PASSWORD },
        }),
      401,
      'AUTH_INVALID_CREDENTIALS',
      '*',
    ],
    [
      'a body over 1 MiB (declared) → 413 PAYLOAD_TOO_LARGE',
      () =>
        server.request('POST', `/p/${listed.id}/api/notes`, {
          headers: { ...listed.anon, origin: APP, 'content-type': 'application/json' },
          rawBody: big,
        }),
      413,
      'PAYLOAD_TOO_LARGE',
      APP,
    ],
    [
      'a body over 1 MiB at an auth endpoint → 413 PAYLOAD_TOO_LARGE',
      () =>
        server.request('POST', `/p/${star.id}/auth/login`, {
          headers: { origin: APP, 'content-type': 'application/json' },
          rawBody: big,
        }),
      413,
      'PAYLOAD_TOO_LARGE',
      '*',
    ],
    [
      'text/plain → 415 UNSUPPORTED_MEDIA_TYPE',
      () =>
        server.request('POST', `/p/${listed.id}/api/notes`, {
          headers: { ...listed.anon, origin: APP, 'content-type': 'text/plain' },
          rawBody: 'title=a',
        }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      APP,
    ],
    [
      'malformed JSON → 400 INVALID_JSON',
      () =>
        server.request('POST', `/p/${listed.id}/api/notes`, {
          headers: { ...listed.anon, origin: APP, 'content-type': 'application/json' },
          rawBody: '{"title":',
        }),
      400,
      'INVALID_JSON',
      APP,
    ],
  ];
  for (const [name, send, status, code, allowed] of errors) {
    it(`${name}, readable by the page`, async () => {
      const response = await send();
      assertError(response, status, code);
      assertAllowed(response, allowed);
    });
  }

  it('POST /p/{id}/realtime without credentials → an error the page can read (401 or 404)', async () => {
    const response = await server.request('POST', `/p/${listed.id}/realtime`, {
      headers: { origin: APP },
      body: { client_id: 'x', subscriptions: [] },
    });
    assert.ok(response.status === 401 || response.status === 404, `${response.status} ${response.text}`);
    assertAllowed(response, APP);
  });

  it('the same errors for a refused origin carry no Access-Control-Allow-* header', async () => {
    const answers = [
      await get(listed, '/api/notes', { origin: EVIL }),
      await get(listed, `/api/notes/${rowId}/extra`, { ...listed.anon, origin: EVIL }),
      await get(listed, '/api/notes/%zz', { ...listed.anon, origin: EVIL }),
      await server.request('POST', `/p/${none.id}/api/notes`, {
        headers: { ...none.anon, origin: APP, 'content-type': 'text/plain' },
        rawBody: 'x',
      }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.body?.error?.code),
      ['AUTH_REQUIRED', 'NOT_FOUND', 'BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE'],
    );
    for (const answer of answers) assertRefused(answer);
  });
});

describe('429 RATE_LIMITED is readable, Retry-After exposed', () => {
  let limited: TestServer;
  before(async () => {
    limited = await startTestServer({ RATE_LIMITS: 'on' });
  });
  after(() => limited.close());

  it('past the per-address login limit → 429, Retry-After, Allow-Origin, Expose-Headers: Retry-After', async () => {
    const project = await createAuthProject(limited, {
      settings: { cors_origins: [APP], rate_limits: { per_address_per_minute: 1 } },
    });
    const login = () =>
      limited.request('POST', `/p/${project.id}/auth/login`, {
        headers: { origin: APP },
        body: { email: 'nobody@example.com', password: PASSWORD },
      });
    assertError(await login(), 401, 'AUTH_INVALID_CREDENTIALS');
    const refused = await login();
    assertError(refused, 429, 'RATE_LIMITED');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assertAllowed(refused, APP);
  });
});

describe('preflight (OPTIONS with Origin and Access-Control-Request-Method), no credentials', () => {
  const preflight = (path: string, origin: string, method: string, requestHeaders?: string) =>
    server.request('OPTIONS', path, {
      headers: {
        origin,
        'access-control-request-method': method,
        ...(requestHeaders && { 'access-control-request-headers': requestHeaders }),
      },
    });

  /** Asserts a 204 preflight that lets `allowed` send every method and header a page needs. */
  function assertPreflightAllowed(response: TestResponse, allowed: string): void {
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
    assert.equal(response.headers.get('access-control-allow-origin'), allowed);
    const methods = items(response, 'access-control-allow-methods');
    for (const method of ['get', 'post', 'patch', 'delete'])
      assert.ok(methods.includes(method), `Allow-Methods: ${methods}`);
    const headers = items(response, 'access-control-allow-headers');
    for (const header of ['authorization', 'content-type', 'x-api-key', 'last-event-id'])
      assert.ok(headers.includes(header), `Allow-Headers: ${headers}`);
    assert.ok(!headers.includes('x-admin-key') && !headers.includes('x-platform-key'), `Allow-Headers: ${headers}`);
    assert.ok(Number(response.headers.get('access-control-max-age')) >= 600);
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    if (allowed !== '*') assert.ok(items(response, 'vary').includes('origin'));
  }

  for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
    it(`${method} on a row, ["*"] → 204 with Allow-Origin: *`, async () => {
      assertPreflightAllowed(
        await preflight(`/p/${star.id}/api/notes/${rowId}`, EVIL, method, 'content-type, x-api-key'),
        '*',
      );
    });
    it(`${method} on a row, a listed origin → 204 with that origin`, async () => {
      assertPreflightAllowed(
        await preflight(`/p/${listed.id}/api/notes/${rowId}`, APP, method, 'authorization, content-type'),
        APP,
      );
    });
    it(`${method} on a row, an unlisted origin → 204 with no Access-Control-Allow-* header`, async () => {
      const response = await preflight(`/p/${listed.id}/api/notes/${rowId}`, EVIL, method);
      assert.equal(response.status, 204);
      assertRefused(response);
    });
    it(`${method} on a row, [] → 204 with no Access-Control-Allow-* header`, async () => {
      const response = await preflight(`/p/${none.id}/api/notes/${rowId}`, APP, method);
      assert.equal(response.status, 204);
      assertRefused(response);
    });
  }

  const paths: [string, () => string, string, string][] = [
    ['the list path', () => `/p/${listed.id}/api/notes`, APP, APP],
    ['bulk', () => `/p/${listed.id}/api/notes/bulk`, APP, APP],
    ['an auth endpoint of a project with an auth table', () => `/p/${star.id}/auth/login`, APP, '*'],
    [
      'an auth endpoint of a project without one (the page then reads AUTH_NOT_CONFIGURED)',
      () => `/p/${listed.id}/auth/login`,
      APP,
      APP,
    ],
    ['realtime', () => `/p/${listed.id}/realtime`, APP, APP],
    ['an unknown project (the page then reads PROJECT_NOT_FOUND)', () => '/p/no-such-project/api/notes', EVIL, '*'],
    [
      'a path under /api that no route serves (the page then reads NOT_FOUND)',
      () => `/p/${listed.id}/api/notes/a/b/c`,
      APP,
      APP,
    ],
  ];
  for (const [name, path, origin, allowed] of paths) {
    it(`${name} → 204, allowed`, async () =>
      assertPreflightAllowed(await preflight(path(), origin, 'POST', 'content-type'), allowed));
  }

  it('asking for X-Admin-Key → it is never in Allow-Headers (the browser then refuses the request)', async () => {
    for (const [project, origin] of [
      [star, EVIL],
      [listed, APP],
    ] as const) {
      const response = await preflight(`/p/${project.id}/api/notes`, origin, 'GET', 'x-admin-key');
      assert.equal(response.status, 204);
      assert.ok(!items(response, 'access-control-allow-headers').includes('x-admin-key'));
      assert.ok(!items(response, 'access-control-allow-headers').includes('x-platform-key'));
    }
  });

  it('credentials sent with a preflight change nothing (no 401)', async () => {
    const response = await server.request('OPTIONS', `/p/${listed.id}/api/notes`, {
      headers: { origin: APP, 'access-control-request-method': 'GET', 'x-api-key': 'pk_wrong' },
    });
    assertPreflightAllowed(response, APP);
  });

  it('OPTIONS without Access-Control-Request-Method is no preflight → 204 with Allow and no CORS header', async () => {
    const response = await server.request('OPTIONS', `/p/${star.id}/api/notes`, { headers: { origin: APP } });
    assert.equal(response.status, 204);
    assert.deepEqual(corsHeaderNames(response), []);
    assert.match(response.headers.get('allow') ?? '', /GET.*POST.*PATCH.*DELETE/);
  });
});

describe('platform and admin paths never carry an Access-Control-Allow-* header', () => {
  const platform = { 'x-platform-key': PLATFORM_KEY };
  const admin: [string, () => Promise<TestResponse>, number][] = [
    ['GET /v1/projects', () => server.request('GET', '/v1/projects', { headers: { ...platform, origin: APP } }), 200],
    [
      'GET /v1/projects without the key (401)',
      () => server.request('GET', '/v1/projects', { headers: { origin: APP } }),
      401,
    ],
    ['GET /p/{id}/v1/settings (["*"] project)', () => get(star, '/v1/settings', { ...star.admin, origin: APP }), 200],
    [
      'GET /p/{id}/v1/settings (listed origin)',
      () => get(listed, '/v1/settings', { ...listed.admin, origin: APP }),
      200,
    ],
    ['GET /p/{id}/v1/tables without the key (401)', () => get(listed, '/v1/tables', { origin: APP }), 401],
    ['GET /p/{id}/v1/nope (404)', () => get(listed, '/v1/nope', { ...listed.admin, origin: APP }), 404],
    // 405: the path exists but OPTIONS is not one of its methods (its Allow header says which are).
    [
      'OPTIONS preflight of /v1/projects → 405',
      () =>
        server.request('OPTIONS', '/v1/projects', {
          headers: { origin: APP, 'access-control-request-method': 'POST' },
        }),
      405,
    ],
    [
      'OPTIONS preflight of /p/{id}/v1/settings → 405',
      () =>
        server.request('OPTIONS', `/p/${star.id}/v1/settings`, {
          headers: { origin: APP, 'access-control-request-method': 'PATCH' },
        }),
      405,
    ],
    ['GET /health', () => server.request('GET', '/health', { headers: { origin: APP } }), 200],
    // The router decodes and forgives what the CORS check reads raw: none of these may slip through.
    [
      'GET /p/{id}/%761/settings (v1 percent-encoded, routed to settings)',
      () => get(star, '/%761/settings', { ...star.admin, origin: APP }),
      200,
    ],
    ['GET /p/{id}/v%31/settings', () => get(star, '/v%31/settings', { ...star.admin, origin: APP }), 200],
    [
      'GET /%70/{id}/v1/settings',
      () => server.request('GET', `/%70/${star.id}/v1/settings`, { headers: { ...star.admin, origin: APP } }),
      200,
    ],
    [
      'GET /p/{id}/v1/settings/ (trailing slash)',
      () => get(star, '/v1/settings/', { ...star.admin, origin: APP }),
      200,
    ],
    [
      'GET /p/{id}/v1/settings?next=/api/ (a CORS path in the query)',
      () => get(star, '/v1/settings?next=/api/', { ...star.admin, origin: APP }),
      200,
    ],
    [
      'GET /%761/projects',
      () => server.request('GET', '/%761/projects', { headers: { ...platform, origin: APP } }),
      200,
    ],
    [
      'GET //p/{id}/v1/settings (double slash, 404)',
      () => server.request('GET', `//p/${star.id}/v1/settings`, { headers: { ...star.admin, origin: APP } }),
      404,
    ],
    [
      'OPTIONS preflight of /p/{id}/%761/settings → 405',
      () =>
        server.request('OPTIONS', `/p/${star.id}/%761/settings`, {
          headers: { origin: APP, 'access-control-request-method': 'PATCH' },
        }),
      405,
    ],
  ];
  for (const [name, send, status] of admin) {
    it(name, async () => {
      const response = await send();
      assert.equal(response.status, status, response.text);
      assertRefused(response);
    });
  }
});

describe('no extra work: GET by id without Origin skips CORS entirely; with Origin it reads only the cache', () => {
  /**
   * Counts calls of the registry's real methods (wrapped, not replaced) while `run` goes. `find`
   * counts lookups: calls of `find`, and calls of `peek` that found a current cached state
   * (the route's synchronous lookup; a miss falls back to `find`).
   */
  async function countRegistryCalls(
    run: () => Promise<TestResponse>,
  ): Promise<{ response: TestResponse; find: number; cached: number }> {
    const registry = server.built.services.registry;
    const counts = { find: 0, cached: 0 };
    const { find, cached, peek } = registry;
    registry.find = (id) => {
      counts.find += 1;
      return find.call(registry, id);
    };
    registry.cached = (id) => {
      counts.cached += 1;
      return cached.call(registry, id);
    };
    registry.peek = (id) => {
      const state = peek.call(registry, id);
      if (state) counts.find += 1;
      return state;
    };
    try {
      return { response: await run(), ...counts };
    } finally {
      registry.find = find;
      registry.cached = cached;
      registry.peek = peek;
    }
  }
  /** A plain fetch: test-server helpers may look the project up themselves to check answers, which would count here. */
  const plainGet = async (path: string, headers: Record<string, string>): Promise<TestResponse> => {
    const response = await fetch(`${server.url}${path}`, { headers });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
  };
  const getRow = (headers: Record<string, string>) => plainGet(`/p/${listed.id}/api/notes/${rowId}`, headers);

  it('without Origin: the project is looked up once (by the route), no cache peek, no CORS header/Vary', async () => {
    await getRow(listed.anon);
    const { response, find, cached } = await countRegistryCalls(() => getRow(listed.anon));
    assert.equal(response.status, 200);
    assert.equal(find, 1);
    assert.equal(cached, 0);
    assert.deepEqual(corsHeaderNames(response), []);
    assert.equal(response.headers.get('vary'), null);
  });

  it("with Origin: still one lookup (the route's); CORS reads the cached settings once", async () => {
    // Up to three tries: on PostgreSQL a change counter or a LISTEN reconnection seen during the
    // request (a busy CI machine) legitimately drops the cache, and the next lookup reloads it.
    // A CORS hook that looked the project up itself would count two lookups every time.
    let counted: Awaited<ReturnType<typeof countRegistryCalls>> | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      counted = await countRegistryCalls(() => getRow({ ...listed.anon, origin: APP }));
      if (counted.find === 1 && counted.cached === 1) break;
    }
    assert.equal(counted!.response.status, 200);
    assert.equal(counted!.find, 1);
    assert.equal(counted!.cached, 1);
    assertAllowed(counted!.response, APP);
  });

  it('an admin path with Origin: the CORS code does not touch the registry (lookups as without Origin)', async () => {
    const plain = await countRegistryCalls(() => plainGet(`/p/${listed.id}/v1/settings`, listed.admin));
    const { response, find, cached } = await countRegistryCalls(() =>
      plainGet(`/p/${listed.id}/v1/settings`, { ...listed.admin, origin: APP }),
    );
    assert.equal(response.status, 200);
    assert.equal(cached, 0);
    assert.equal(find, plain.find);
    assertRefused(response);
  });
});
