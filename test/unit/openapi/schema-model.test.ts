import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApiDocument } from '../../../src/openapi/openapi-document.js';
import { buildArtefacts } from '../../../src/openapi/project-documents.js';
import { buildSchemaModel } from '../../../src/openapi/schema-model.js';
import { definitionsOf, EVERY_OPTION_SCHEMA, NO_AUTH_SCHEMA } from '../../helpers/openapi-fixtures.js';

const target = { projectId: 'demo', publicUrl: 'https://api.example.com/' };

function keysSorted(value: unknown, path = '$'): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) keysSorted(item, `${path}[${i}]`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const keys = Object.keys(value);
  assert.deepEqual(keys, [...keys].sort(), `keys of ${path} are not sorted`);
  for (const key of keys) keysSorted((value as Record<string, unknown>)[key], `${path}.${key}`);
}

describe('openapi schema model', () => {
  it('row: every readable column, required; nullable unless required; never password', () => {
    const [users, tasks] = buildSchemaModel(definitionsOf(EVERY_OPTION_SCHEMA)).tables;
    assert.equal(users!.name, 'app_users');
    assert.deepEqual(users!.readable, ['id', 'created_at', 'updated_at', 'email', 'email_verified', 'nickname']);
    assert.deepEqual(users!.row.required, users!.readable);
    assert.equal(users!.row.properties.password, undefined);
    assert.deepEqual(tasks!.row.properties.title, {
      type: 'string',
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'Text without U+0000 (NUL) or unpaired UTF-16 surrogates.',
    });
    assert.deepEqual(tasks!.row.properties.ratio, { type: ['number', 'null'] });
    assert.deepEqual(tasks!.row.properties.status!.enum, ['open', 'on hold', 'closed', null]);
  });

  it('create: required columns without a default required, id optional, no timestamps; update: all optional', () => {
    const { tables } = buildSchemaModel(definitionsOf(EVERY_OPTION_SCHEMA));
    const tasks = tables.find((t) => t.name === 'tasks')!;
    assert.deepEqual(tasks.create.required, ['title', 'started_at']);
    assert.ok(tasks.create.properties.id);
    assert.equal(tasks.create.properties.created_at, undefined);
    assert.deepEqual(tasks.update.required, []);
    assert.equal(tasks.update.properties.id, undefined);
    const users = tables.find((t) => t.authTable)!;
    assert.deepEqual(users.create.required, ['email', 'password']);
    assert.deepEqual(users.signup!.required, ['email', 'password']);
    assert.equal(users.signup!.properties.email_verified, undefined, 'signup cannot set email_verified');
  });

  it('the same schema gives the same bytes, whatever the table order; keys are sorted everywhere', () => {
    const definitions = definitionsOf(EVERY_OPTION_SCHEMA);
    const a = buildArtefacts(definitions, target);
    const b = buildArtefacts([...definitions].reverse(), target);
    assert.equal(a.json, b.json);
    assert.equal(a.types(), b.types());
    keysSorted(a.document);
  });

  it('servers[0].url is PUBLIC_URL/p/{id}; the version changes with the schema', () => {
    const model = buildSchemaModel(definitionsOf(NO_AUTH_SCHEMA));
    const document = buildOpenApiDocument(model, target);
    assert.deepEqual(document.servers, [{ url: 'https://api.example.com/p/demo' }]);
    const other = buildSchemaModel(
      definitionsOf([[NO_AUTH_SCHEMA[0]![0], { columns: [{ name: 'body', type: 'text' }] }]]),
    );
    assert.notEqual(other.version, model.version);
  });

  it('list parameters: paging, sort, select, filter, a shorthand filter per column (reserved names left out)', () => {
    const document = buildArtefacts(definitionsOf(EVERY_OPTION_SCHEMA), target).document as Record<string, any>;
    const names = (document.paths['/api/tasks'].get.parameters as { name: string }[]).map((p) => p.name);
    for (const name of ['limit', 'offset', 'count', 'sort', 'select', 'filter', 'title', 'due', 'id'])
      assert.ok(names.includes(name), name);
    assert.equal(
      names.filter((n) => n === 'count').length,
      1,
      'the column "count" does not shadow the count parameter',
    );
    assert.equal(new Set(names).size, names.length);
  });
});
