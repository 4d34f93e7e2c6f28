import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApiDocument } from '../../../src/openapi/openapi-document.js';
import { buildSchemaModel } from '../../../src/openapi/schema-model.js';
import { definitionsOf, NO_AUTH_SCHEMA, type SchemaFixture } from '../../helpers/openapi-fixtures.js';

const target = { projectId: 'demo', publicUrl: 'https://api.example.com/' };
type Doc = { paths: Record<string, any>; tags: { name: string }[] };

/** A project with a table named batch from before the name was reserved (parseDefinition alone allows it). */
const WITH_BATCH_TABLE: SchemaFixture = [
  ['batch', { columns: [{ name: 'label', type: 'text' }], rules: { list: '', view: '', create: '' } }],
  ['jobs', { columns: [{ name: 'title', type: 'text', required: true }], rules: { create: '', delete: '' } }],
];

const offered = (doc: Doc) =>
  doc.paths['/api/batch'].post.requestBody.content['application/json'].schema.properties.operations.items.anyOf
    .map((o: any) => `${o.properties.method.const} ${o.properties.table.const}`)
    .sort();

describe('POST /api/batch in the OpenAPI document', () => {
  it('an older table named batch keeps its GET; POST is the batch endpoint, which never offers that table', () => {
    const doc = buildOpenApiDocument(buildSchemaModel(definitionsOf(WITH_BATCH_TABLE)), target) as unknown as Doc;
    assert.equal(doc.paths['/api/batch'].get.operationId, 'listBatch');
    assert.equal(doc.paths['/api/batch'].post.operationId, 'batch');
    assert.ok(doc.paths['/api/batch/{row_id}'].patch, 'its rows keep their paths');
    assert.deepEqual(offered(doc), ['DELETE jobs', 'PATCH jobs', 'POST jobs']);
    const tags = doc.tags.map((t) => t.name);
    assert.deepEqual(tags, [...new Set(tags)], 'no tag twice');
  });

  it('the publishable key sees only the writes its rules allow, and no batch path when there are none', () => {
    const model = buildSchemaModel(definitionsOf(WITH_BATCH_TABLE));
    const pub = buildOpenApiDocument(model, target, 'public') as unknown as Doc;
    assert.deepEqual(offered(pub), ['DELETE jobs', 'POST jobs']);
    const none = buildOpenApiDocument(
      buildSchemaModel(definitionsOf(NO_AUTH_SCHEMA)),
      target,
      'public',
    ) as unknown as Doc;
    assert.equal(none.paths['/api/batch'], undefined);
    assert.ok(!none.tags.some((t) => t.name === 'batch'));
  });
});
