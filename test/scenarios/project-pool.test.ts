import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

// With more projects than open file handles, the pool closes idle files and reopens them on use.
describe('SQLite project pool (MAX_OPEN_PROJECTS=2)', () => {
  let server: TestServer;
  const projects: TestProject[] = [];
  before(async () => {
    server = await startTestServer({ MAX_OPEN_PROJECTS: '2' });
    for (let i = 0; i < 5; i++) {
      const project = await createProject(server, `pool-${i}`);
      await putTable(server, project, 'notes', { columns: [{ name: 'body', type: 'text' }] });
      projects.push(project);
    }
  });
  after(() => server.close());

  it('serves every project correctly while handles are evicted and reopened', async () => {
    for (let round = 0; round < 3; round++) {
      for (const [i, project] of projects.entries()) {
        const created = await server.request('POST', `/p/${project.id}/api/notes`, {
          headers: project.admin,
          body: { body: `p${i} r${round}` },
        });
        assert.equal(created.status, 201, created.text);
      }
    }
    for (const [i, project] of projects.entries()) {
      const list = await server.request('GET', `/p/${project.id}/api/notes`, { headers: project.admin });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.meta.total, 3);
      assert.deepEqual(
        list.body.data.map((r: { body: string }) => r.body),
        [`p${i} r0`, `p${i} r1`, `p${i} r2`],
      );
    }
  });

  it('sees a schema change made while the project file was closed', async () => {
    const [first] = projects;
    await putTable(server, first!, 'notes', {
      columns: [
        { name: 'body', type: 'text' },
        { name: 'pinned', type: 'boolean', default: false },
      ],
    });
    for (const project of projects.slice(1))
      await server.request('GET', `/p/${project.id}/api/notes`, { headers: project.admin });
    const created = await server.request('POST', `/p/${first!.id}/api/notes`, {
      headers: first!.admin,
      body: { body: 'x', pinned: true },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.pinned, true);
  });
});
