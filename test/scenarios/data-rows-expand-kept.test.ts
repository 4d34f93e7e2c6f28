/**
 * Expanded rows kept between requests (docs/api.md, "Expanded rows between requests"), the
 * cases beside data-rows-expand.test.ts: a project deleted and created again under the same id
 * never sees the old project's rows, and with EXPAND_CACHE_MB=0 nothing is kept, so every
 * expanding request reads its related rows again, on every engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';
import type { Database } from '../../src/store/types.js';

describe('EXPAND_CACHE_MB=0: expansions read their rows on every request', () => {
  let server: TestServer;
  let project: TestProject;

  before(async () => {
    server = await startTestServer({ EXPAND_CACHE_MB: '0' });
    project = await createProject(server);
    await putTable(server, project, 'authors', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { list: '', view: '' },
    });
    await putTable(server, project, 'books', {
      columns: [
        { name: 'title', type: 'text' },
        { name: 'author', type: 'text', references: { table: 'authors', on_delete: 'set_null' } },
      ],
      rules: { list: '', view: '' },
    });
    const author = await server.request('POST', `/p/${project.id}/api/authors`, {
      headers: project.admin,
      body: { name: 'Ursula' },
    });
    assert.equal(author.status, 201, author.text);
    const books = await server.request('POST', `/p/${project.id}/api/books/bulk`, {
      headers: project.admin,
      body: [
        { title: 'A', author: author.body.data.id },
        { title: 'B', author: author.body.data.id },
      ],
    });
    assert.equal(books.status, 201, books.text);
  });
  after(() => server.close());

  it('the same expanded list twice, nothing written between: page + authors each time, the same rows', async () => {
    const db = (await server.built.services.schemas.schema(project.id)).db as unknown as Database &
      Record<string, unknown>;
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
        const response = await server.request('GET', `/p/${project.id}/api/books?count=none&expand=author`, {
          headers: project.anon,
        });
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

describe('a project deleted and created again under the same id', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** Creates project "again" with an author and a book by them; returns the book's list answer with expand=author. */
  async function createAndRead(authorName: string): Promise<Record<string, unknown>[]> {
    const project = await createProject(server, 'again');
    await putTable(server, project, 'authors', {
      columns: [{ name: 'name', type: 'text' }],
      rules: { list: '', view: '' },
    });
    await putTable(server, project, 'books', {
      columns: [{ name: 'author', type: 'text', references: { table: 'authors', on_delete: 'set_null' } }],
      rules: { list: '', view: '' },
    });
    const author = await server.request('POST', `/p/${project.id}/api/authors`, {
      headers: project.admin,
      body: { name: authorName },
    });
    await server.request('POST', `/p/${project.id}/api/books`, {
      headers: project.admin,
      body: { author: author.body.data.id },
    });
    const read = () =>
      server.request('GET', `/p/${project.id}/api/books?count=none&expand=author`, { headers: project.anon });
    await read();
    const response = await read();
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  }

  it("never shows the old project's kept rows (the new project's database is another)", async () => {
    const first = await createAndRead('Old');
    assert.equal((first[0]!.expand as { author: { name: string } }).author.name, 'Old');
    assert.equal(
      (await server.request('DELETE', '/v1/projects/again', { headers: { 'x-platform-key': PLATFORM_KEY } })).status,
      204,
    );
    const second = await createAndRead('New');
    assert.equal((second[0]!.expand as { author: { name: string } }).author.name, 'New');
  });
});
