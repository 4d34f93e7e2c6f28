/**
 * TABLE_NOT_FOUND is built in one place (src/tables/not-found.ts) for the data API, the
 * schema API and realtime topics: the same message everywhere, the project's tables listed
 * where the caller knows them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tableNotFound } from '../../../src/tables/not-found.js';

describe('tableNotFound', () => {
  it('names the table, with the 404 TABLE_NOT_FOUND of the catalogue', () => {
    const error = tableNotFound('taks');
    assert.equal(error.code, 'TABLE_NOT_FOUND');
    assert.equal(error.status, 404);
    assert.equal(error.message, 'This project has no table "taks".');
    assert.match(error.suggestion, /GET \/p\/\{id\}\/v1\/tables/);
  });

  it("lists the project's tables, sorted, when they are known", () => {
    assert.equal(tableNotFound('taks', { tables: ['tasks', 'projects'] }).suggestion, 'Tables: projects, tasks.');
  });

  it('says how to create a table when the project has none', () => {
    assert.equal(tableNotFound('taks', { tables: [] }).suggestion, 'Create one with PUT /p/{id}/v1/tables/{table}.');
  });

  it('quotes the realtime topic that named the table', () => {
    assert.equal(
      tableNotFound('taks', { tables: [], topic: 'taks?filter=x' }).message,
      'This project has no table "taks" (topic "taks?filter=x").',
    );
  });
});
