/**
 * Omitted optional columns (issue 27, defect 1): a row created without a value for an optional
 * column reads back `null` on every engine, whatever the column is called, unless the column
 * declares a default. Column names that auth tables use (`email_verified`) once took a DDL
 * default on SQLite only, so `POST {}` answered `false` there and `null` on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

const OPTIONAL_COLUMNS = [
  { name: 'title', type: 'text' },
  { name: 'email', type: 'text' },
  { name: 'n', type: 'integer' },
  { name: 'x', type: 'number' },
  { name: 'flag', type: 'boolean' },
  { name: 'email_verified', type: 'boolean' },
  { name: 'at', type: 'timestamp' },
  { name: 'doc', type: 'json' },
] as const;

const DEFAULTED_COLUMNS = [
  { name: 'title', type: 'text', default: 'untitled' },
  { name: 'n', type: 'integer', default: 0 },
  { name: 'x', type: 'number', default: 1.5 },
  { name: 'flag', type: 'boolean', default: true },
  { name: 'email_verified', type: 'boolean', default: true },
  { name: 'at', type: 'timestamp', default: '2026-01-31T09:30:00.000Z' },
  { name: 'doc', type: 'json', default: { a: [1] } },
] as const;

describe('omitted optional columns', () => {
  let server: TestServer;
  let project: TestProject;
  const create = async (table: string) => {
    const response = await server.request('POST', `/p/${project.id}/api/${table}`, {
      headers: project.admin,
      body: {},
    });
    assert.equal(response.status, 201, response.text);
    const created = response.body.data as Record<string, unknown>;
    const read = await server.request('GET', `/p/${project.id}/api/${table}/${String(created.id)}`, {
      headers: project.admin,
    });
    assert.equal(read.status, 200, read.text);
    return { created, read: read.body.data as Record<string, unknown> };
  };

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'omitted-columns');
    await putTable(server, project, 'plain', { columns: OPTIONAL_COLUMNS });
    await putTable(server, project, 'defaulted', { columns: DEFAULTED_COLUMNS });
  });
  after(() => server.close());

  for (const column of OPTIONAL_COLUMNS) {
    it(`POST {} → an optional ${column.type} column "${column.name}" without default reads back null`, async () => {
      const { created, read } = await create('plain');
      assert.equal(created[column.name], null, 'in the create answer');
      assert.equal(read[column.name], null, 'when read back');
    });
  }

  it('POST {} → every optional column with a declared default reads back that default', async () => {
    const { created, read } = await create('defaulted');
    for (const column of DEFAULTED_COLUMNS) {
      assert.deepEqual(created[column.name], column.default, `${column.name} in the create answer`);
      assert.deepEqual(read[column.name], column.default, `${column.name} when read back`);
    }
  });
});
