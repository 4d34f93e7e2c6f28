import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// A json value nested thousands of levels deep used to overflow the stack (500).
describe('json columns: nesting depth', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server);
    await putTable(server, project, 'docs', { columns: [{ name: 'doc', type: 'json' }] });
  });
  after(() => server.close());

  const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it('4,000 levels → 400 VALIDATION_FAILED naming the column', async () => {
    const response = await server.request('POST', `/p/${project.id}/api/docs`, {
      headers: { ...project.admin, 'content-type': 'application/json' },
      rawBody: `{"doc": ${nested(4000)}}`,
    });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.error.code, 'VALIDATION_FAILED');
    assert.match(response.body.error.message, /doc: must not nest arrays and objects more than 64 levels deep/);
  });

  it('64 levels → 201, and the value round-trips', async () => {
    const response = await server.request('POST', `/p/${project.id}/api/docs`, {
      headers: { ...project.admin, 'content-type': 'application/json' },
      rawBody: `{"doc": ${nested(64)}}`,
    });
    assert.equal(response.status, 201, response.text);
    const read = await server.request('GET', `/p/${project.id}/api/docs/${response.body.data.id}`, {
      headers: project.admin,
    });
    assert.equal(JSON.stringify(read.body.data.doc), nested(64));
  });
});
