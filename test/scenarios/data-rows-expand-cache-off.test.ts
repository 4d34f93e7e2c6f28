/**
 * EXPAND_CACHE_MB=0 (docs/api.md, "Expanded rows between requests"): no expanded row is kept,
 * so every expanding request reads its related rows again, on every engine. The default
 * (rows kept until the next write, SQLite) is covered by data-rows-expand.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';
import type { Database } from '../../src/store/types.js';

describe('EXPAND_CACHE_MB=0: expansions read their rows on every request', () => {
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    server = await startTestServer({ EXPAND_CACHE_MB: '0' });
    project = await createProject(server);
    await putTable(server, project, 'authors', { columns: [{ name: 'name', type: 'text' }], rules: { list: '', view: '' } });
    await putTable(server, project, 'books', { columns: [{ name: 'title', type: 'text' }, { name: 'author', type: 'text', references: { table: 'authors', on_delete: 'set_null' } }], rules: { list: '', view: '' } });
    const author = await server.request('POST', `/p/${project.id}/api/authors`, { headers: project.admin, body: { name: 'Ursula' } });
    assert.equal(author.status, 201, author.text);
    const books = await server.request('POST', `/p/${project.id}/api/books/bulk`, { headers: project.admin, body: [{ title: 'A', author: author.body.data.id }, { title: 'B', author: author.body.data.id }] });
    assert.equal(books.status, 201, books.text);
  });
  after(() => server.close());

  it('the same expanded list twice, nothing written between: page + authors each time, the same rows', async () => {
    const db = (await server.built.services.schemas.schema(project.id)).db as unknown as Database & Record<string, unknown>;
    let statements = 0;
    const original = db.all;
    db.all = ((...args: Parameters<Database['all']>) => {
      statements++;
      return original.apply(db, args);
    }) as never;
    try {
      const answers = [];
      for (let i = 0; i < 2; i++) {
        statements = 0;
        const response = await server.request('GET', `/p/${project.id}/api/books?count=none&expand=author`, { headers: project.anon });
        assert.equal(response.status, 200, response.text);
        assert.equal(statements, 2, `request ${i + 1}: the page and the authors`);
        answers.push(response.body.data);
      }
      assert.deepEqual(answers[1], answers[0]);
      assert.equal(answers[0][0].expand.author.name, 'Ursula');
    } finally {
      delete (db as Record<string, unknown>).all;
    }
  });
});
