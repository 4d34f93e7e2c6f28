/**
 * The OpenAPI document for the publishable key (GET /p/{id}/v1/openapi.json with X-Api-Key):
 * the API as an anonymous client sees it, so the reference page can be shared with front-end
 * developers. Operations whose rule is null are left out, a table with none left is not
 * described, expansions into it are typed as the always-null / always-empty values the server
 * gives this caller, and the admin key still gets everything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { assertError } from '../helpers/assert-error.js';
import { applySchema, type SchemaFixture } from '../helpers/openapi-fixtures.js';
import {
  createProject,
  PLATFORM_KEY,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

// ajv-formats is CommonJS: its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

/** An auth table with its default rules, a public read-only table, and a locked one that references it. */
const SCHEMA: SchemaFixture = [
  ['members', { auth_table: true, columns: [{ name: 'nickname', type: 'text' }] }],
  [
    'notes',
    {
      columns: [
        { name: 'body', type: 'text', required: true },
        { name: 'author', type: 'text', references: { table: 'members', on_delete: 'set_null' } },
      ],
      rules: { list: '', view: '', create: null, update: null, delete: null },
    },
  ],
  [
    'secrets',
    {
      columns: [
        { name: 'launch_code', type: 'text' },
        { name: 'note', type: 'text', references: { table: 'notes', on_delete: 'cascade' } },
      ],
    },
  ],
];

describe('GET /p/{id}/v1/openapi.json with the publishable key', () => {
  let server: TestServer;
  let project: TestProject;
  let pub: Doc;
  let full: Doc;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await applySchema(server, project, SCHEMA);
    const answer = await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.anon });
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    pub = answer.body;
    full = (await server.request('GET', `/p/${project.id}/v1/openapi.json`, { headers: project.admin })).body;
  });
  after(() => server.close());

  it('pk_ → 200: a valid OpenAPI 3.1 document of only the operations whose rules are not null', async () => {
    const result = await validate(structuredClone(pub));
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    const operations = (doc: Doc) =>
      Object.entries<Doc>(doc.paths)
        .flatMap(([path, item]) =>
          Object.keys(item)
            .filter((m) => m !== 'parameters')
            .map((m) => `${m.toUpperCase()} ${path}`),
        )
        .filter((o) => o.includes('/api/'))
        .sort();
    assert.deepEqual(operations(pub), [
      'GET /api/members/{row_id}',
      'GET /api/notes',
      'GET /api/notes/{row_id}',
      'PATCH /api/members',
      'PATCH /api/members/{row_id}',
      'POST /api/batch',
      'POST /api/members',
      'POST /api/members/bulk',
    ]);
    assert.ok(
      pub.paths['/auth/signup'] && pub.paths['/auth/login'] && pub.paths['/realtime'],
      'auth and realtime stay',
    );
    assert.match(pub.info.description, /publishable key/);
    assert.ok(operations(full).includes('DELETE /api/secrets/{row_id}'), 'the admin key still sees every operation');
    assert.equal(full.info.version, pub.info.version);
  });

  it('a table the pk_ key can call nothing on is not described: no paths, no row schema, no columns', () => {
    assert.deepEqual(
      Object.keys(pub.components.schemas).filter((name) => name.startsWith('Secrets')),
      [],
    );
    assert.ok(!pub.tags.some((tag: Doc) => tag.name === 'secrets'));
    assert.doesNotMatch(JSON.stringify(pub), /launch_code/);
    assert.match(JSON.stringify(full), /launch_code/);
  });

  it('expansions into a locked table are typed as this caller gets them (null / empty); the answers fit', async () => {
    const { NotesExpand, MembersExpand } = pub.components.schemas;
    assert.deepEqual(NotesExpand.properties.author.anyOf, [
      { $ref: '#/components/schemas/MembersRow' },
      { type: 'null' },
    ]);
    assert.equal(NotesExpand.properties['secrets(note)'].maxItems, 0);
    assert.deepEqual(Object.keys(MembersExpand.properties), ['notes(author)']);
    const note = await server.request('POST', `/p/${project.id}/api/notes`, {
      headers: project.admin,
      body: { body: 'hello' },
    });
    await server.request('POST', `/p/${project.id}/api/secrets`, {
      headers: project.admin,
      body: { launch_code: '0000', note: note.body.data.id },
    });
    const listed = await server.request(
      'GET',
      `/p/${project.id}/api/notes?expand=${encodeURIComponent('author,secrets(note)')}`,
      { headers: project.anon },
    );
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data[0].expand['secrets(note)'], []);
    const schema = pub.paths['/api/notes'].get.responses['200'].content['application/json'].schema;
    const fits = addFormats(new Ajv2020({ strict: false })).compile({ ...schema, components: pub.components });
    assert.ok(fits(listed.body), JSON.stringify(fits.errors));
  });

  it('no key → 401 AUTH_REQUIRED; a wrong pk_, sk_ in X-Api-Key, or bad admin key beside a pk_ → 401', async () => {
    const path = `/p/${project.id}/v1/openapi.json`;
    assertError(await server.request('GET', path), 401, 'AUTH_REQUIRED');
    assertError(await server.request('GET', path, { headers: { 'x-api-key': 'pk_wrong' } }), 401, 'AUTH_INVALID_KEY');
    assertError(
      await server.request('GET', path, { headers: { 'x-api-key': project.adminKey } }),
      401,
      'AUTH_INVALID_KEY',
    );
    assertError(
      await server.request('GET', path, { headers: { ...project.anon, 'x-admin-key': 'sk_wrong' } }),
      401,
      'AUTH_INVALID_KEY',
    );
    const other = await createProject(server);
    assertError(await server.request('GET', path, { headers: other.anon }), 401, 'AUTH_INVALID_KEY');
    const platform = await server.request('GET', path, { headers: { 'x-platform-key': PLATFORM_KEY } });
    assert.ok(platform.body.paths['/api/secrets'], 'the platform key sees everything');
  });
});
