/**
 * GET /p/{id}/v1/openapi.json and GET /p/{id}/docs (contract §9): the document is valid
 * OpenAPI 3.1 (a standard validator accepts it) for projects without an auth table, with an
 * auth table that verifies email, and with every column type and option; it says what the
 * columns say; it is admin-only; it changes with the schema and only then; the reference
 * page is public, strict and keeps the key out of URLs. The truthfulness of every answer on
 * documented paths is checked by test-server.ts for the whole HTTP suite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { assertError } from '../helpers/assert-error.js';
import { checkAnswer, OpenApiMismatch } from '../helpers/openapi-truth.js';
import {
  applySchema,
  AUTH_VERIFY_SCHEMA,
  EVERY_OPTION_SCHEMA,
  NO_AUTH_SCHEMA,
  type SchemaFixture,
} from '../helpers/openapi-fixtures.js';
import { signUp } from '../helpers/auth-fixtures.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

describe('GET /p/{id}/v1/openapi.json', () => {
  let server: TestServer;
  const projects: Record<string, TestProject> = {};
  const fixtures: Record<string, SchemaFixture> = {
    'no-auth': NO_AUTH_SCHEMA,
    'auth-verify': AUTH_VERIFY_SCHEMA,
    'every-option': EVERY_OPTION_SCHEMA,
  };
  const documentOf = async (project: TestProject): Promise<Doc> => {
    const response = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };

  before(async () => {
    server = await startTestServer();
    for (const [name, schema] of Object.entries(fixtures)) {
      projects[name] = await createProject(server, `oa-${name}`);
      await applySchema(server, projects[name]!, schema);
    }
    projects.empty = await createProject(server, 'oa-empty');
  });
  after(() => server.close());

  for (const name of ['no-auth', 'auth-verify', 'every-option', 'empty']) {
    it(`${name}: 200 application/json that @readme/openapi-parser accepts as OpenAPI 3.1`, async () => {
      const project = projects[name]!;
      const response = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(response.body.openapi, '3.1.0');
      assert.match(response.body.servers[0].url, new RegExp(`/p/${project.id}$`));
      const result = await validate(structuredClone(response.body));
      assert.ok(result.valid, result.valid ? '' : compileErrors(result));
      assert.deepEqual(Object.keys(response.body.components.securitySchemes).sort(), [
        'AdminKey',
        'ApiKey',
        'BearerAuth',
        'PlatformKey',
      ]);
    });
  }

  it('one path per table, no generic {table} parameter; auth paths only with an auth table', async () => {
    const plain = await documentOf(projects['no-auth']!);
    assert.deepEqual(Object.keys(plain.paths).sort(), [
      '/api/batch',
      '/api/notes',
      '/api/notes/bulk',
      '/api/notes/{row_id}',
      '/realtime',
    ]);
    const auth = await documentOf(projects['auth-verify']!);
    for (const path of [
      '/auth/signup',
      '/auth/login',
      '/auth/refresh',
      '/auth/me',
      '/auth/logout',
      '/auth/change-password',
      '/auth/forgot-password',
      '/auth/reset-password',
      '/auth/verify',
      '/auth/resend-verification',
    ]) {
      assert.ok(auth.paths[path], `missing ${path}`);
    }
    assert.ok(auth.paths['/api/posts/{row_id}'].patch);
    const noVerify = await documentOf(projects['every-option']!);
    assert.ok(noVerify.paths['/auth/login'], 'an auth table without verify_email still has login');
    assert.equal(noVerify.paths['/auth/verify'], undefined, 'verify is documented only with verify_email');
    assert.deepEqual(Object.keys((await documentOf(projects.empty!)).paths), ['/realtime']);
  });

  it('column types and options become schema keywords; system columns read-only; password write-only', async () => {
    const doc = await documentOf(projects['every-option']!);
    const { TasksRow: row, AppUsersRow: userRow } = doc.components.schemas;
    const body = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema;
    const [create, update, userCreate] = [
      body('/api/tasks', 'post'),
      body('/api/tasks/{row_id}', 'patch'),
      body('/api/app_users', 'post'),
    ];
    assert.deepEqual(body('/api/tasks/bulk', 'post').items, create, 'each bulk item is a create body');
    assert.deepEqual(row.properties.title, {
      type: 'string',
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'Text without U+0000 (NUL) or unpaired UTF-16 surrogates.',
    });
    assert.deepEqual(row.properties.label.enum, ['a', 'b', null]);
    assert.deepEqual(row.properties.priority, { type: 'integer', minimum: 1, maximum: 5 });
    assert.deepEqual(row.properties.score.type, ['number', 'null']);
    assert.equal(row.properties.score.maximum, 1.5);
    assert.equal(row.properties.due.format, 'date-time');
    assert.equal(row.properties.created_at.readOnly, true);
    assert.ok(row.required.includes('updated_at'));
    assert.ok(create.required.includes('title') && create.required.includes('started_at'));
    assert.ok(!create.required.includes('priority'), 'a required column with a default may be left out');
    assert.equal(create.properties.priority.default, 3);
    assert.equal(create.properties.created_at, undefined, 'no system timestamps in a create body');
    assert.equal(update.required, undefined, 'a PATCH body requires nothing');
    assert.equal(update.properties.id, undefined);
    assert.equal(userRow.properties.password, undefined, 'password is never read');
    assert.equal(userCreate.properties.password.writeOnly, true);
    assert.match(create.properties.owner.description, /app_users/);
  });

  it('every operation lists its errors with the envelope; codes come from the catalogue', async () => {
    const doc = await documentOf(projects['auth-verify']!);
    const list = doc.paths['/api/posts'].get.responses;
    const listBadRequest =
      list['400'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
    assert.ok(
      listBadRequest.includes('VALIDATION_FILTER') && !listBadRequest.includes('VALIDATION_FAILED'),
      listBadRequest.join(),
    );
    assert.ok(
      list['401'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum.includes(
        'AUTH_REQUIRED',
      ),
    );
    assert.ok(list['503'], 'outages (503 SERVICE_UNAVAILABLE) are listed');
    assert.ok(doc.paths['/auth/login'].post.responses['429'].headers['Retry-After']);
    assert.equal(doc.paths['/auth/logout'].post.responses['204'].content, undefined);
    for (const [path, item] of Object.entries<Doc>(doc.paths)) {
      for (const [method, operation] of Object.entries<Doc>(item)) {
        if (method === 'parameters') continue;
        for (const [status, response] of Object.entries<Doc>(operation.responses)) {
          if (Number(status) >= 400)
            assert.equal(
              response.content['application/json'].schema.allOf[0].$ref,
              '#/components/schemas/ErrorEnvelope',
              `${method} ${path} ${status}`,
            );
        }
      }
    }
  });

  it('is rebuilt when the schema changes, and the same bytes until then', async () => {
    const project = await createProject(server);
    await applySchema(server, project, NO_AUTH_SCHEMA);
    const first = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    const again = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    assert.equal(again.text, first.text);
    // Built once per schema version, not per request: the same artefacts until a table changes.
    const documents = server.built.services.openapi;
    const built = await documents.artefacts(project.id);
    assert.equal(await documents.artefacts(project.id), built);
    await putTable(server, project, 'tags', { columns: [{ name: 'label', type: 'text' }] });
    assert.notEqual(await documents.artefacts(project.id), built);
    const changed = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin });
    assert.ok(changed.body.paths['/api/tags'], 'the new table is documented at once');
    assert.notEqual(changed.body.info.version, first.body.info.version);
  });

  it('unknown project → 404 PROJECT_NOT_FOUND', async () => {
    assertError(
      await server.request('GET', '/p/no-such-project/v1/openapi.json', { headers: projects['no-auth']!.admin }),
      404,
      'PROJECT_NOT_FOUND',
    );
  });

  it("no key → 401 AUTH_REQUIRED; the pk_ key, a wrong key, another's sk_ → 401 AUTH_INVALID_KEY", async () => {
    const project = projects['no-auth']!;
    const path = `/p/${project.id}/v1/openapi.json`;
    assertError(await server.request('GET', path), 401, 'AUTH_REQUIRED');
    assertError(
      await server.request('GET', path, { headers: { 'x-admin-key': project.publishableKey } }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(await server.request('GET', path, { headers: { 'x-admin-key': 'sk_wrong' } }), 401, 'AUTH_INVALID_KEY');
    assertError(
      await server.request('GET', path, { headers: projects['auth-verify']!.admin }),
      401,
      'AUTH_INVALID_KEY',
    );
  });

  it("a user's bearer token → 401 AUTH_REQUIRED; the platform key → 200 (it has the admin key's powers)", async () => {
    const project = projects['auth-verify']!;
    const user = await signUp(server, project, 'reader@example.com');
    assertError(
      await server.request('GET', `/p/${project.id}/v1/openapi.json`, {
        headers: { authorization: `Bearer ${user.token}` },
      }),
      401,
      'AUTH_REQUIRED',
    );
    const platform = await server.request('GET', `/p/${project.id}/v1/openapi.json`, {
      headers: { 'x-platform-key': PLATFORM_KEY },
    });
    assert.equal(platform.status, 200, platform.text);
    assert.equal(platform.body.openapi, '3.1.0');
  });

  it('the truthfulness check fails an answer the document does not describe', async () => {
    const project = projects['no-auth']!;
    const answer = (status: number, body: unknown) => ({
      status,
      headers: new Headers({ 'content-type': 'application/json' }),
      body,
      text: JSON.stringify(body),
    });
    const services = server.built.services;
    await assert.rejects(
      checkAnswer(services, 'GET', `/p/${project.id}/api/notes/x`, answer(200, { data: { id: 5 } })),
      OpenApiMismatch,
    );
    await assert.rejects(
      checkAnswer(services, 'GET', `/p/${project.id}/api/notes/a%20b?select=body`, answer(200, { data: {} })),
      OpenApiMismatch,
      'query and percent-encoding',
    );
    await assert.rejects(
      checkAnswer(services, 'GET', `/p/${project.id}/api/notes?filter=body%20%3D%20%22x%22`, answer(200, { data: [] })),
      OpenApiMismatch,
      'meta missing',
    );
    await assert.rejects(
      checkAnswer(
        services,
        'GET',
        `/p/${project.id}/api/notes`,
        answer(418, { error: { code: 'TEAPOT', message: 'm', suggestion: 's' } }),
      ),
      OpenApiMismatch,
    );
    await assert.rejects(
      checkAnswer(
        services,
        'POST',
        `/p/${project.id}/api/notes`,
        answer(409, { error: { code: 'ROW_NOT_FOUND', message: 'm', suggestion: 's' } }),
      ),
      OpenApiMismatch,
      'a code the operation does not list',
    );
    const row = {
      id: 'a',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      body: 'x',
      pinned: false,
    };
    await checkAnswer(services, 'GET', `/p/${project.id}/api/notes/a`, answer(200, { data: row }));
    await assert.rejects(
      checkAnswer(
        services,
        'GET',
        `/p/${project.id}/api/notes/a`,
        answer(200, { data: { ...row, pinned: null, extra: 1 } }),
      ),
      OpenApiMismatch,
    );
  });
});

describe('GET /p/{id}/docs', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await applySchema(server, project, NO_AUTH_SCHEMA);
  });
  after(() => server.close());

  it('serves a public HTML page under the strict page policy (scripts from self only), with no key in it', async () => {
    const page = await server.request('GET', `/p/${project.id}/docs`);
    assert.equal(page.status, 200, page.text);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(page.text, /<script(?![^>]*\ssrc=)/, 'no inline script');
    assert.ok(!page.text.includes(project.adminKey) && !page.text.includes(project.publishableKey));
    assert.match(page.text, /type="password"/);
    assert.doesNotMatch(
      page.text,
      /<input[^>]*\sname=/,
      'the key field has no name, so no form submission can carry it',
    );
  });

  it('serves Swagger UI and the page script locally, with their types and the same headers', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['swagger-ui.css', 'text/css'],
      ['docs-page.js', 'text/javascript'],
      ['docs-page.css', 'text/css'],
    ]) {
      const asset = await server.request('GET', `/p/${project.id}/docs/assets/${file}`);
      assert.equal(asset.status, 200, file);
      assert.match(asset.headers.get('content-type') ?? '', new RegExp(`^${type}`));
      assert.ok(asset.text.length > 100);
      assert.equal(asset.headers.get('x-content-type-options'), 'nosniff');
    }
    assertError(await server.request('GET', `/p/${project.id}/docs/assets/index.html`), 404, 'NOT_FOUND');
    assertError(await server.request('GET', `/p/${project.id}/docs/assets/..%2Fpackage.json`), 404, 'NOT_FOUND');
  });

  it('unknown project → 404 PROJECT_NOT_FOUND (page and assets)', async () => {
    assertError(await server.request('GET', '/p/no-such-project/docs'), 404, 'PROJECT_NOT_FOUND');
    assertError(await server.request('GET', '/p/no-such-project/docs/assets/docs-page.js'), 404, 'PROJECT_NOT_FOUND');
  });
});

// The README's quickstart, step by step: every answer is checked against the project's
// document by test-server.ts (truthfulness), and the document passes the validator.
describe("the README's demo project", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('every quickstart answer matches the document, which @readme/openapi-parser accepts', async () => {
    const project = await createProject(server, 'demo');
    await putTable(server, project, 'tasks', {
      columns: [
        { name: 'title', type: 'text', required: true, max_length: 200 },
        { name: 'done', type: 'boolean', default: false },
        { name: 'due', type: 'timestamp' },
      ],
      rules: { list: '', view: '' },
    });
    const base = `/p/${project.id}`;
    const one = await server.request('POST', `${base}/api/tasks`, {
      headers: project.admin,
      body: { title: 'Buy milk', due: '2026-12-01T09:00:00Z' },
    });
    assert.equal(one.status, 201, one.text);
    const bulk = await server.request('POST', `${base}/api/tasks/bulk`, {
      headers: project.admin,
      body: [{ title: 'Urgent: call the bank' }, { title: 'Water plants', done: true }],
    });
    assert.equal(bulk.status, 201, bulk.text);
    const filter = encodeURIComponent('done = false && title ~ "urgent"');
    const list = await server.request('GET', `${base}/api/tasks?filter=${filter}&sort=-created_at`, {
      headers: project.anon,
    });
    assert.equal(list.body.meta.total, 1, list.text);
    assertError(
      await server.request('GET', `${base}/api/tasks?filter=${encodeURIComponent('titel = "x"')}`, {
        headers: project.anon,
      }),
      400,
      'VALIDATION_FILTER',
    );
    assertError(
      await server.request('POST', `${base}/api/tasks`, { headers: project.anon, body: { title: 'x' } }),
      403,
      'FORBIDDEN',
    );
    const selected = await server.request('GET', `${base}/api/tasks?select=title&count=none&limit=1`, {
      headers: project.anon,
    });
    assert.deepEqual(Object.keys(selected.body.data[0]).sort(), ['id', 'title']);
    assert.equal(selected.body.meta.total, null);
    const patched = await server.request('PATCH', `${base}/api/tasks/${one.body.data.id}`, {
      headers: project.admin,
      body: { done: true, due: null },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(
      (await server.request('DELETE', `${base}/api/tasks/${one.body.data.id}`, { headers: project.admin })).status,
      204,
    );
    assertError(
      await server.request('GET', `${base}/api/tasks/${one.body.data.id}`, { headers: project.admin }),
      404,
      'ROW_NOT_FOUND',
    );

    await putTable(server, project, 'users', { auth_table: true, columns: [{ name: 'name', type: 'text' }] });
    const signup = await server.request('POST', `${base}/auth/signup`, {
      body: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' },
    });
    assert.equal(signup.status, 201, signup.text);
    const me = await server.request('GET', `${base}/auth/me`, {
      headers: { authorization: `Bearer ${signup.body.token}` },
    });
    assert.equal(me.body.user.name, 'Ada');
    assertError(
      await server.request('POST', `${base}/auth/login`, {
        body: { email: 'ada@example.com', password: 'wrong password' },
      }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    const refreshed = await server.request('POST', `${base}/auth/refresh`, {
      body: { refresh_token: signup.body.refresh_token },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assertError(
      await server.request('POST', `${base}/auth/forgot-password`, {
        body: { email: 'ada@example.com', redirect_url: 'https://evil.example.com/' },
      }),
      400,
      'VALIDATION_REDIRECT_URL',
    );
    assert.equal(
      (
        await server.request('POST', `${base}/auth/logout`, {
          headers: { authorization: `Bearer ${signup.body.token}` },
        })
      ).status,
      204,
    );

    const document = await server.request('GET', `${base}/v1/openapi.json`, { headers: project.admin });
    const result = await validate(structuredClone(document.body));
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    assert.ok(document.body.paths['/api/users/{row_id}'] && document.body.paths['/auth/signup']);
  });
});
