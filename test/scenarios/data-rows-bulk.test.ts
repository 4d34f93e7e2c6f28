/**
 * Bulk creation (contract §6): all or nothing, errors naming the first bad row, at most
 * 10,000 rows; and the body limits (1 MiB, 16 MiB for bulk).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, putTable, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('POST /p/{id}/api/{table}/bulk', () => {
  let server: TestServer;
  let project: TestProject;
  const bulk = (table: string, body: unknown) =>
    server.request('POST', `/p/${project.id}/api/${table}/bulk`, { headers: project.admin, body });
  const total = async (table: string) =>
    (await server.request('GET', `/p/${project.id}/api/${table}?limit=0`, { headers: project.admin })).body.meta
      .total as number;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'bulk-rows');
    await putTable(server, project, 'items', {
      columns: [
        { name: 'name', type: 'text', required: true },
        { name: 'sku', type: 'text', unique: true },
        { name: 'qty', type: 'integer', min: 0 },
        { name: 'parent', type: 'text', references: { table: 'items', on_delete: 'cascade' } },
        { name: 'blob', type: 'text' },
      ],
    });
  });
  after(() => server.close());

  it('creates every row → 201 {data: [rows]} in request order', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ name: `item ${i}`, sku: `bulk-${i}`, qty: i }));
    const response = await bulk('items', rows);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.length, 25);
    assert.deepEqual(
      response.body.data.map((r: { name: string }) => r.name),
      rows.map((r) => r.name),
    );
    assert.equal(new Set(response.body.data.map((r: { id: string }) => r.id)).size, 25);
    const fetched = await server.request('GET', `/p/${project.id}/api/items/${response.body.data[7].id}`, {
      headers: project.admin,
    });
    assert.deepEqual(fetched.body.data, response.body.data[7]);
    assert.equal(await total('items'), 25);
  });

  it('a later row may reference an earlier row of the same request', async () => {
    const response = await bulk('items', [
      { id: 'root-1', name: 'root' },
      { name: 'child', parent: 'root-1' },
    ]);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data[1].parent, 'root-1');
  });

  describe('one bad row → the error names it and no row is written', () => {
    const good = (i: number) => ({ name: `ok ${i}`, sku: `atomic-${i}` });
    const cases: [string, unknown[], number, string, string][] = [
      ['a missing required column', [good(0), good(1), { sku: 'x' }, good(3)], 400, 'VALIDATION_FAILED', 'row 2'],
      ['a wrong type', [good(0), { name: 'bad', qty: 'many' }], 400, 'VALIDATION_FAILED', 'row 1'],
      ['a value below min', [{ name: 'bad', qty: -1 }, good(1)], 400, 'VALIDATION_FAILED', 'row 0'],
      [
        'an unknown column',
        [good(0), good(1), good(2), good(3), { name: 'x', colour: 'red' }],
        400,
        'VALIDATION_UNKNOWN_COLUMN',
        'row 4',
      ],
      [
        'a read-only column',
        [good(0), { name: 'x', created_at: '2026-01-01T00:00:00Z' }],
        400,
        'VALIDATION_FAILED',
        'row 1',
      ],
      ['a row that is not an object', [good(0), good(1), 'not a row'], 400, 'VALIDATION_FAILED', 'row 2'],
      [
        'a unique duplicate inside the batch',
        [good(0), good(1), good(2), { name: 'dup', sku: 'atomic-1' }],
        409,
        'CONFLICT_UNIQUE',
        'row 3',
      ],
      [
        'a unique duplicate of an existing row',
        [good(0), { name: 'dup', sku: 'bulk-3' }],
        409,
        'CONFLICT_UNIQUE',
        'row 1',
      ],
      [
        'an id given twice',
        [
          { id: 'same', name: 'a' },
          { id: 'same', name: 'b' },
        ],
        409,
        'CONFLICT_UNIQUE',
        'row 1',
      ],
      [
        'a reference to a missing row',
        [good(0), { name: 'orphan', parent: 'no-such-item' }, good(2)],
        409,
        'CONFLICT_REFERENCE',
        'row 1',
      ],
    ];
    for (const [label, rows, status, code, where] of cases) {
      it(`${label} → ${status} ${code} naming ${where}`, async () => {
        const before = await total('items');
        const response = await bulk('items', rows);
        assertError(response, status, code);
        assertMessageIncludes(response, where);
        assert.equal(await total('items'), before, 'no row was written');
      });
    }
    it('the first bad row is the one named', async () => {
      const response = await bulk('items', [good(0), { name: 5 }, { qty: 'x' }]);
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'row 1');
    });
  });

  // A table that references no row of its own: its rows are written in multi-row statements,
  // and a refused statement is written again row by row, so errors still name the first bad row.
  describe('rows written together (no self-reference)', () => {
    const part = (i: number) => ({ label: `part ${i}`, code: `code-${i}`, ...(i % 7 !== 0 && { item: 'root-1' }) });
    const parts = (n: number) => Array.from({ length: n }, (_, i) => part(i));
    before(async () => {
      await putTable(server, project, 'parts', {
        columns: [
          { name: 'label', type: 'text', required: true },
          { name: 'code', type: 'text', unique: true },
          { name: 'item', type: 'text', references: { table: 'items', on_delete: 'cascade' } },
        ],
      });
    });

    it('250 rows, some with a null → 201 in request order, each as a later GET reads it', async () => {
      const response = await bulk('parts', parts(250));
      assert.equal(response.status, 201, response.text.slice(0, 300));
      assert.deepEqual(
        response.body.data.map((r: { code: string }) => r.code),
        parts(250).map((r) => r.code),
      );
      for (const index of [0, 1, 99, 100, 249]) {
        const row = response.body.data[index];
        const fetched = await server.request('GET', `/p/${project.id}/api/parts/${row.id}`, { headers: project.admin });
        assert.deepEqual(fetched.body.data, row);
      }
      assert.equal(await total('parts'), 250);
    });

    const cases: [string, unknown[], number, string, string][] = [
      [
        'a unique duplicate inside the batch, past the first statement',
        [
          ...parts(300).slice(250),
          ...Array.from({ length: 200 }, (_, i) => part(1000 + i)),
          { label: 'dup', code: 'code-1100' },
        ],
        409,
        'CONFLICT_UNIQUE',
        'row 250',
      ],
      [
        'a unique duplicate of an existing row',
        [part(2000), part(2001), { label: 'dup', code: 'code-5' }],
        409,
        'CONFLICT_UNIQUE',
        'row 2',
      ],
      [
        'an id given twice',
        [{ id: 'p-same', label: 'a' }, part(3000), { id: 'p-same', label: 'b' }],
        409,
        'CONFLICT_UNIQUE',
        'row 2',
      ],
      [
        'a reference to a missing row of another table',
        [part(4000), part(4001), part(4002), { label: 'orphan', item: 'no-such-item' }],
        409,
        'CONFLICT_REFERENCE',
        'row 3',
      ],
    ];
    for (const [label, rows, status, code, where] of cases) {
      it(`${label} → ${status} ${code} naming ${where}; nothing written`, async () => {
        const before = await total('parts');
        const response = await bulk('parts', rows);
        assertError(response, status, code);
        assertMessageIncludes(response, where);
        assert.equal(await total('parts'), before, 'no row was written');
      });
    }
  });

  it('a row naming a later row of the same request → 409 CONFLICT_REFERENCE naming it', async () => {
    const response = await bulk('items', [
      // Every column set: no null, so SQLite could put both rows in one statement.
      { name: 'child', sku: 'forward-0', qty: 1, parent: 'root-later', blob: 'b' },
      { id: 'root-later', name: 'root', sku: 'forward-1', qty: 1, parent: 'root-1', blob: 'b' },
    ]);
    assertError(response, 409, 'CONFLICT_REFERENCE');
    assertMessageIncludes(response, 'row 0');
  });

  describe('shape and size', () => {
    const refused: [string, unknown][] = [
      ['an empty array', []],
      ['an object instead of an array', { name: 'x' }],
      ['a string', 'rows'],
    ];
    for (const [label, body] of refused) {
      it(`${label} → 400 VALIDATION_FAILED`, async () => {
        assertError(await bulk('items', body), 400, 'VALIDATION_FAILED');
      });
    }

    it('10,001 rows → 400 VALIDATION_FAILED naming the limit; nothing written', async () => {
      await putTable(server, project, 'tiny', { columns: [{ name: 'v', type: 'integer' }] });
      const response = await bulk(
        'tiny',
        Array.from({ length: 10_001 }, () => ({})),
      );
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, /10[,.]?000/);
      assert.equal(await total('tiny'), 0);
    });

    it('10,000 rows → 201', async () => {
      const response = await bulk(
        'tiny',
        Array.from({ length: 10_000 }, (_, v) => ({ v })),
      );
      assert.equal(response.status, 201, response.text.slice(0, 300));
      assert.equal(response.body.data.length, 10_000);
      assert.equal(await total('tiny'), 10_000);
    });
  });

  describe('body limits', () => {
    const kib = (n: number) => 'x'.repeat(n * 1024);

    it('POST with a body over 1 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await server.request('POST', `/p/${project.id}/api/items`, {
        headers: project.admin,
        body: { name: 'big', blob: kib(1025) },
      });
      assertError(response, 413, 'PAYLOAD_TOO_LARGE');
    });
    it('PATCH with a body over 1 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await server.request('PATCH', `/p/${project.id}/api/items/root-1`, {
        headers: project.admin,
        body: { blob: kib(1100) },
      });
      assertError(response, 413, 'PAYLOAD_TOO_LARGE');
    });
    it('POST just under 1 MiB → 201', async () => {
      const response = await server.request('POST', `/p/${project.id}/api/items`, {
        headers: project.admin,
        body: { name: 'big', blob: kib(1000) },
      });
      assert.equal(response.status, 201, response.text.slice(0, 300));
    });
    it('a bulk body of 2 MiB → 201', async () => {
      const rows = Array.from({ length: 64 }, (_, i) => ({ name: `chunk ${i}`, blob: kib(32) }));
      const size = JSON.stringify(rows).length;
      assert.ok(size > 2 * 1024 * 1024 && size < 3 * 1024 * 1024, `the body is ${size} bytes`);
      const response = await bulk('items', rows);
      assert.equal(response.status, 201, response.text.slice(0, 300));
      assert.equal(response.body.data.length, 64);
    });
    it('a bulk body over 16 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
      const rows = Array.from({ length: 17 }, (_, i) => ({ name: `huge ${i}`, blob: kib(1024) }));
      assertError(await bulk('items', rows), 413, 'PAYLOAD_TOO_LARGE');
    });
  });
});
