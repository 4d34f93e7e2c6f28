/**
 * The bookkeeping of the expanded-row cache (src/tables/related-row-cache.ts): an entry is
 * used only at the generation and for the compiled table it was stored with, stale entries are
 * dropped when asked for, oversized rows are never kept, and the byte budget drops the oldest
 * entries first. Whether a write makes entries stale is shown over HTTP in
 * test/scenarios/data-rows-expand.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileTable } from '../../../src/tables/compiled-table.js';
import { RelatedRowCache } from '../../../src/tables/related-row-cache.js';
import type { TableDefinition } from '../../../src/schema/definition.js';

const definition: TableDefinition = {
  name: 'authors',
  columns: [{ name: 'name', type: 'text', required: false, unique: false }],
  auth_table: false,
  verify_email: false,
  rules: { list: '', view: '', create: null, update: null, delete: null },
  indexes: [],
};
const table = compileTable(definition, new Map());
const sameSchemaAgain = compileTable(definition, new Map());
const row = (id: string, name = 'Ada') => ({
  id,
  name,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('RelatedRowCache', () => {
  it('gives an entry back at its generation and for its compiled table only', () => {
    const cache = new RelatedRowCache();
    const ada = row('a1');
    cache.store('k', table, 5, ada);
    assert.equal(cache.lookup('k', table, 5), ada);
    assert.equal(
      cache.lookup('k', sameSchemaAgain, 5),
      undefined,
      'another compiled table (a schema change) never matches',
    );
    assert.equal(cache.lookup('k', table, 5), undefined, 'and the stale entry was dropped');
  });

  it('drops an entry asked for at a later generation; an older view leaves a newer entry alone', () => {
    const cache = new RelatedRowCache();
    cache.store('k', table, 7, row('a1'));
    assert.equal(
      cache.lookup('k', table, 6),
      undefined,
      'a request that looked before the write does not get the newer rows',
    );
    assert.ok(cache.lookup('k', table, 7), 'the newer entry is still there');
    assert.equal(cache.lookup('k', table, 8), undefined);
    assert.equal(cache.bytes, 0, 'nothing held once the only entry went stale');
  });

  it('keeps a reverse entry with no rows ([]): a parent without related rows is read once', () => {
    const cache = new RelatedRowCache();
    cache.store('r', table, 1, []);
    assert.deepEqual(cache.lookup('r', table, 1), []);
  });

  it('never keeps a row larger than 64 KiB (estimated), alone or in a reverse list', () => {
    const cache = new RelatedRowCache();
    cache.store('big', table, 1, row('a1', 'x'.repeat(40_000)));
    assert.equal(cache.lookup('big', table, 1), undefined);
    cache.store('list', table, 1, [row('a1'), row('a2', 'x'.repeat(40_000))]);
    assert.equal(cache.lookup('list', table, 1), undefined, 'one large row among small ones');
    assert.equal(cache.bytes, 0);
  });

  it('stays within its byte budget, dropping the oldest entries first', () => {
    const cache = new RelatedRowCache(10_000);
    for (let i = 0; i < 200; i++) cache.store(`k${i}`, table, 1, row(`a${i}`, 'n'.repeat(100)));
    assert.ok(cache.bytes <= 10_000, `held ${cache.bytes} bytes`);
    assert.equal(cache.lookup('k0', table, 1), undefined, 'the oldest went first');
    assert.ok(cache.lookup('k199', table, 1), 'the newest is kept');
  });

  it('replacing an entry does not count its bytes twice', () => {
    const cache = new RelatedRowCache();
    cache.store('k', table, 1, row('a1'));
    const once = cache.bytes;
    cache.store('k', table, 2, row('a1'));
    assert.equal(cache.bytes, once);
  });
});
