/**
 * The OpenAPI document is as strict as the server (defect 10): third-party tools (fuzzers,
 * client generators) trust its keywords, so each one must say what the server enforces.
 * Each scenario reads the document over HTTP and, where the server decides, asks the server
 * the same question: shorthand filters, timestamps, NUL in text, PATCH bodies, expand, and
 * the descriptions and licence generators print.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { assertError } from '../helpers/assert-error.js';
import { defaultsInComponents } from '../helpers/openapi-truth.js';
import { applySchema, AUTH_VERIFY_SCHEMA, EVERY_OPTION_SCHEMA, NO_AUTH_SCHEMA } from '../helpers/openapi-fixtures.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// ajv-formats is CommonJS: its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

describe('the OpenAPI document is as strict as the server', () => {
  let server: TestServer;
  let project: TestProject;
  let doc: Doc;
  /** The inline request body schema of an operation. */
  const body = (path: string, method: string): Doc =>
    doc.paths[path][method].requestBody.content['application/json'].schema;
  /** Whether `value` fits `schema` of the document (formats asserted, components resolvable). */
  const fits = (schema: object, value: unknown): boolean =>
    addFormats(new Ajv2020({ strict: false })).compile({ ...schema, components: doc.components })(value);

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await applySchema(server, project, EVERY_OPTION_SCHEMA);
    doc = (await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin })).body;
  });
  after(() => server.close());

  it("a shorthand filter parameter's pattern accepts exactly what the server accepts, per column type", async () => {
    const parameters = new Map<string, Doc>(doc.paths['/api/tasks'].get.parameters.map((p: Doc) => [p.name, p]));
    const values = [
      'hello',
      'eq',
      'eq.x',
      'eq.3',
      'gte.1.5',
      'like.*a*',
      'in.(1,2)',
      'in.()',
      'is.null',
      'is.true',
      'lt.@now',
      'eq.2024-01-31',
      'eq.2024-01-31T10:00:00+01:00',
      'eq.tomorrow',
    ];
    const disagreements: string[] = [];
    for (const column of ['title', 'priority', 'score', 'done', 'due', 'meta', 'created_at', 'id']) {
      const pattern = parameters.get(column)?.schema.pattern;
      assert.equal(typeof pattern, 'string', `${column} has a pattern`);
      for (const value of values) {
        const response = await server.request(
          'GET',
          `/p/${project.id}/api/tasks?${column}=${encodeURIComponent(value)}&limit=1`,
          { headers: project.admin },
        );
        if (response.status !== 200) assertError(response, 400, 'VALIDATION_FILTER');
        const documented = new RegExp(pattern, 'u').test(value);
        if (documented !== (response.status === 200))
          disagreements.push(`${column}=${value}: document ${documented}, server ${response.status}`);
      }
    }
    assert.deepEqual(disagreements, []);
  });

  it('timestamps (created_at too) are format: date-time; a written one has the pattern the server reads', async () => {
    const { TasksRow: row } = doc.components.schemas;
    const [create, update] = [body('/api/tasks', 'post'), body('/api/tasks/{row_id}', 'patch')];
    for (const schema of [
      row.properties.due,
      row.properties.created_at,
      row.properties.updated_at,
      create.properties.due,
      create.properties.started_at,
      update.properties.due,
    ]) {
      assert.equal(schema.format, 'date-time', JSON.stringify(schema));
    }
    for (const [value, accepted] of [
      ['2026-01-31', true],
      ['2026-01-31T09:30:00Z', true],
      ['2026-01-31 09:30', true],
      ['yesterday', false],
      ['2026-1-31', false],
    ] as const) {
      assert.equal(new RegExp(create.properties.started_at.pattern, 'u').test(value), accepted, `pattern on ${value}`);
      const response = await server.request('POST', `/p/${project.id}/api/tasks`, {
        headers: project.admin,
        body: { title: 't', started_at: value },
      });
      if (accepted) assert.equal(response.status, 201, response.text);
      else assertError(response, 400, 'VALIDATION_FAILED');
    }
  });

  it('text refuses U+0000 by pattern as the server does (400); the description names surrogates', async () => {
    const { TasksRow: row } = doc.components.schemas;
    const [create, update] = [body('/api/tasks', 'post'), body('/api/tasks/{row_id}', 'patch')];
    for (const schema of [
      row.properties.title,
      create.properties.title,
      update.properties.title,
      create.properties.code,
    ]) {
      assert.equal(fits(schema, 'a\u0000b'), false, JSON.stringify(schema));
      assert.equal(fits(schema, 'ab'), true);
      assert.match(schema.description, /unpaired UTF-16 surrogates/);
    }
    assertError(
      await server.request('POST', `/p/${project.id}/api/tasks`, {
        headers: project.admin,
        body: { title: 'a\u0000b', started_at: '2026-01-01' },
      }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('PATCH bodies have no default and require nothing: what a PATCH leaves out, the server keeps', async () => {
    for (const path of ['/api/tasks/{row_id}', '/api/app_users/{row_id}']) {
      const update = body(path, 'patch');
      assert.equal(update.required, undefined, `PATCH ${path} requires nothing`);
      for (const [property, value] of Object.entries<Doc>(update.properties))
        assert.equal(value.default, undefined, `PATCH ${path}: ${property} has no default`);
    }
    assert.equal(body('/api/tasks', 'post').properties.status.default, 'open', 'a create still documents its defaults');
    // Defaults only inside request bodies, never in a component (generators read those as always present);
    // test-server.ts refuses every document that has one, for the whole suite.
    assert.deepEqual(defaultsInComponents(doc), []);
    const planted = {
      components: {
        schemas: { A: { properties: { default: { type: 'string' }, b: { type: 'integer', default: 1 } } } },
      },
    };
    assert.deepEqual(
      defaultsInComponents(planted),
      ['#/components/schemas/A/properties/b/default'],
      'a column named "default" is not the keyword',
    );
    const created = await server.request('POST', `/p/${project.id}/api/tasks`, {
      headers: project.admin,
      body: { title: 't', started_at: '2026-01-01', status: 'closed', priority: 5 },
    });
    assert.equal(created.status, 201, created.text);
    const patched = await server.request('PATCH', `/p/${project.id}/api/tasks/${created.body.data.id}`, {
      headers: project.admin,
      body: { title: 'u' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.status, 'closed', 'the default was not applied');
    assert.equal(patched.body.data.priority, 5);
  });

  it('expand: each expansion a $ref to the related row (or null), reverse ones arrays; answers fit', async () => {
    const { TasksRow, TasksListItem, TasksExpand, AppUsersExpand } = doc.components.schemas;
    assert.deepEqual(TasksRow.properties.expand, { $ref: '#/components/schemas/TasksExpand' });
    assert.deepEqual(TasksListItem.properties.expand, { $ref: '#/components/schemas/TasksExpand' });
    assert.deepEqual(TasksExpand.properties.owner.anyOf, [
      { $ref: '#/components/schemas/AppUsersRow' },
      { type: 'null' },
    ]);
    assert.equal(TasksExpand.additionalProperties, false);
    assert.deepEqual(AppUsersExpand.properties['tasks(owner)'].items, { $ref: '#/components/schemas/TasksRow' });
    assert.equal(AppUsersExpand.properties['tasks(owner)'].type, 'array');
    const user = await server.request('POST', `/p/${project.id}/api/app_users`, {
      headers: project.admin,
      body: { email: 'ada@example.com', password: 'correct horse battery', nickname: 'ada' },
    });
    assert.equal(user.status, 201, user.text);
    const task = await server.request('POST', `/p/${project.id}/api/tasks`, {
      headers: project.admin,
      body: { title: 'owned', started_at: '2026-01-01', owner: user.body.data.id },
    });
    // test-server.ts validates each answer against the document: these pass only if the typed expand fits.
    const got = await server.request('GET', `/p/${project.id}/api/tasks/${task.body.data.id}?expand=owner`, {
      headers: project.admin,
    });
    assert.equal(got.body.data.expand.owner.id, user.body.data.id);
    const listed = await server.request(
      'GET',
      `/p/${project.id}/api/app_users?expand=${encodeURIComponent('tasks(owner)')}`,
      { headers: project.admin },
    );
    assert.equal(listed.body.data[0].expand['tasks(owner)'][0].id, task.body.data.id);
    assert.equal(
      fits(TasksRow, { ...got.body.data, expand: { owner: { id: 'not a whole row' } } }),
      false,
      'an expanded owner must be a whole app_users row',
    );
  });

  it('every operation of every document has a description; info.license is MIT', async () => {
    const others = [];
    for (const schema of [NO_AUTH_SCHEMA, AUTH_VERIFY_SCHEMA]) {
      const other = await createProject(server);
      await applySchema(server, other, schema);
      others.push((await server.request('GET', `/p/${other.id}/v1/openapi.json`, { headers: other.admin })).body);
    }
    const missing: string[] = [];
    for (const document of [doc, ...others]) {
      assert.deepEqual(document.info.license, { identifier: 'MIT', name: 'MIT' });
      for (const [path, item] of Object.entries<Doc>(document.paths)) {
        for (const [method, operation] of Object.entries<Doc>(item)) {
          if (
            method !== 'parameters' &&
            !(typeof operation.description === 'string' && operation.description.length > 20)
          )
            missing.push(`${method} ${path}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });
});
