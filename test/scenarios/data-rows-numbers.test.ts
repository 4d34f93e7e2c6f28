/**
 * Numbers that are not numbers (issue 10, item 5) and unknown columns reported first (item 7).
 * JSON.parse reads `1e400` as Infinity, which would be stored as null (or as something else
 * than what was sent): every entry point refuses it with 400 naming the column, as it refuses
 * integers beyond ±(2^53−1). The bodies are sent raw, since JSON.stringify cannot write 1e400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, startTestServer, putTable, type TestProject, type TestServer } from '../helpers/test-server.js';

describe('numbers that are not numbers, and unknown columns first', () => {
  let server: TestServer;
  let project: TestProject;
  const raw = (method: string, route: string, body: string, headers = project.admin) =>
    server.request(method, `/p/${project.id}${route}`, {
      headers: { ...headers, 'content-type': 'application/json' },
      rawBody: body,
    });
  const rows = async (table = 'nums') => {
    const response = await server.request('GET', `/p/${project.id}/api/${table}?sort=id`, { headers: project.admin });
    assert.equal(response.status, 200, response.text);
    return response.body.data as Record<string, unknown>[];
  };
  let kept: Record<string, unknown>;

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'numbers');
    await putTable(server, project, 'nums', {
      columns: [
        { name: 'n', type: 'number', required: true },
        { name: 'i', type: 'integer' },
        { name: 'doc', type: 'json' },
      ],
      rules: { list: '', view: '', create: '@request.body.n > 0', update: '@request.body.n > 0' },
    });
    await putTable(server, project, 'members', { auth_table: true, columns: [{ name: 'score', type: 'number' }] });
    await putTable(server, project, 'people', {
      columns: [
        { name: 'name', type: 'text', required: true },
        { name: 'nickname', type: 'text' },
      ],
      rules: { create: '' },
    });
    const created = await raw('POST', '/api/nums', '{"n": 1.5, "i": 9007199254740991}');
    assert.equal(created.status, 201, created.text);
    kept = created.body.data;
  });
  after(() => server.close());

  describe('the largest finite values are kept exactly', () => {
    it('n = 1.7976931348623157e308 and i = -(2^53-1) → 201, read back unchanged', async () => {
      const created = await raw(
        'POST',
        '/api/nums',
        '{"n": 1.7976931348623157e308, "i": -9007199254740991, "doc": {"x": [-1.7976931348623157e308]}}',
      );
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.n, Number.MAX_VALUE);
      assert.equal(created.body.data.i, -Number.MAX_SAFE_INTEGER);
      const read = await server.request('GET', `/p/${project.id}/api/nums/${created.body.data.id}`, {
        headers: project.admin,
      });
      assert.deepEqual(read.body.data, created.body.data);
      assert.equal(
        (
          await server.request('DELETE', `/p/${project.id}/api/nums/${created.body.data.id}`, {
            headers: project.admin,
          })
        ).status,
        204,
      );
    });
  });

  describe('bodies: 400 VALIDATION_FAILED naming the column, nothing written', () => {
    const cases: [string, string, string, string][] = [
      ['number column, 1e400', 'POST', '{"n": 1e400}', 'n: must be a finite number'],
      ['number column, -1e400', 'POST', '{"n": -1e400}', 'n: must be a finite number'],
      ['integer column, 1e400', 'POST', '{"n": 1, "i": 1e400}', 'i: must be a whole number within ±(2^53-1)'],
      [
        'integer column, 2^53+1',
        'POST',
        '{"n": 1, "i": 9007199254740993}',
        'i: must be a whole number within ±(2^53-1)',
      ],
      [
        'integer column, -2^63',
        'POST',
        '{"n": 1, "i": -9223372036854775808}',
        'i: must be a whole number within ±(2^53-1)',
      ],
      [
        'json column, 1e400 nested in an array',
        'POST',
        '{"n": 1, "doc": {"a": [1, 1e400]}}',
        'doc: must not hold numbers beyond',
      ],
      ['json column, a bare -1e999', 'POST', '{"n": 1, "doc": -1e999}', 'doc: must not hold numbers beyond'],
    ];
    for (const [label, method, body, message] of cases) {
      it(`create, ${label} → 400 VALIDATION_FAILED "${message}"`, async () => {
        const response = await raw(method, '/api/nums', body);
        assertError(response, 400, 'VALIDATION_FAILED');
        assertMessageIncludes(response, message);
        assert.deepEqual(await rows(), [kept], 'nothing was written');
      });
    }

    it('PATCH {"n": 1e400} → 400 VALIDATION_FAILED naming n; the row keeps 1.5', async () => {
      const response = await raw('PATCH', `/api/nums/${kept.id}`, '{"n": 1e400}');
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'n: must be a finite number');
      assert.deepEqual(await rows(), [kept]);
    });

    it('PATCH {"i": 9007199254740992} → 400 VALIDATION_FAILED naming i', async () => {
      const response = await raw('PATCH', `/api/nums/${kept.id}`, '{"i": 9007199254740992}');
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'i: must be a whole number');
      assert.deepEqual(await rows(), [kept]);
    });

    it('bulk with 1e400 in its third row → 400 VALIDATION_FAILED "row 2: n: ..."; no row written', async () => {
      const response = await raw('POST', '/api/nums/bulk', '[{"n": 1}, {"n": 2}, {"n": 1e400}, {"n": 4}]');
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, /^row 2: n: must be a finite number/);
      assert.deepEqual(await rows(), [kept]);
    });

    it('a create rule reading @request.body.n (pk_ key) → 400 VALIDATION_FAILED, not 201 or 403', async () => {
      const response = await raw('POST', '/api/nums', '{"n": 1e400}', project.anon);
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'n: must be a finite number');
      assert.deepEqual(await rows(), [kept]);
    });

    it('signup with a custom number column of 1e400 → 400 VALIDATION_FAILED naming score; no user', async () => {
      const response = await server.request('POST', `/p/${project.id}/auth/signup`, {
        headers: { 'content-type': 'application/json' },
        rawBody: '{"email": "inf@example.com", "password": "correct horse battery", "score": 1e400}',
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'score: must be a finite number');
      assert.deepEqual(await rows('members'), []);
    });
  });

  describe('filter literals and shorthand values: 400 VALIDATION_FILTER', () => {
    const cases: [string, string][] = [
      ['filter=n = 1e400', `filter=${encodeURIComponent('n = 1e400')}`],
      ['filter=n > -1e400', `filter=${encodeURIComponent('n > -1e400')}`],
      ['filter=i = 9007199254740993', `filter=${encodeURIComponent('i = 9007199254740993')}`],
      ['n=gt.1e400', 'n=gt.1e400'],
      ['n=in.(1,1e400)', `n=${encodeURIComponent('in.(1,1e400)')}`],
      ['i=eq.9007199254740993', 'i=eq.9007199254740993'],
      ['i=lt.1e400', 'i=lt.1e400'],
    ];
    for (const [label, query] of cases) {
      it(`${label} → 400 VALIDATION_FILTER`, async () => {
        const response = await server.request('GET', `/p/${project.id}/api/nums?${query}`, { headers: project.admin });
        assertError(response, 400, 'VALIDATION_FILTER');
      });
    }
    it('a finite literal still filters: filter=n = 1.5 and n=eq.1.5 find the row', async () => {
      for (const query of [`filter=${encodeURIComponent('n = 1.5')}`, 'n=eq.1.5', 'i=eq.9007199254740991']) {
        const response = await server.request('GET', `/p/${project.id}/api/nums?${query}`, { headers: project.admin });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(
          response.body.data.map((row: { id: string }) => row.id),
          [kept.id],
          query,
        );
      }
    });
  });

  describe('table definitions: default, min and max must be finite', () => {
    const cases: [string, string, string][] = [
      [
        'a number default of 1e400',
        '{"columns": [{"name": "x", "type": "number", "default": 1e400}]}',
        'x: the default must be a finite number',
      ],
      [
        'an integer default of 2^53',
        '{"columns": [{"name": "x", "type": "integer", "default": 9007199254740992}]}',
        'x: the default must be a whole number',
      ],
      [
        'a json default holding 1e400',
        '{"columns": [{"name": "x", "type": "json", "default": {"a": 1e400}}]}',
        'x: the default must not hold numbers beyond',
      ],
      [
        'a max of 1e400',
        '{"columns": [{"name": "x", "type": "number", "max": 1e400}]}',
        'x: max must be a finite number',
      ],
      [
        'a min of -1e400',
        '{"columns": [{"name": "x", "type": "integer", "min": -1e400}]}',
        'x: min must be a finite number',
      ],
    ];
    for (const [label, body, message] of cases) {
      it(`${label} → 400 VALIDATION_FAILED "${message}"; no table`, async () => {
        const response = await raw('PUT', '/v1/tables/defaults', body);
        assertError(response, 400, 'VALIDATION_FAILED');
        assertMessageIncludes(response, message);
        assert.equal(
          (await server.request('GET', `/p/${project.id}/v1/tables/defaults`, { headers: project.admin })).status,
          404,
        );
      });
    }
  });

  describe('unknown columns are reported before missing ones', () => {
    const people = (method: string, route: string, body: unknown) =>
      server.request(method, `/p/${project.id}/api${route}`, { headers: project.admin, body });
    it('{"nmae": "x"} → 400 VALIDATION_UNKNOWN_COLUMN naming nmae, suggesting name (not "required")', async () => {
      const response = await people('POST', '/people', { nmae: 'x' });
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
      assertMessageIncludes(response, '"nmae"');
      assert.match(response.body.error.suggestion, /Did you mean "name"\?/);
    });
    it('with the pk_ key and an open create rule the same', async () => {
      const response = await server.request('POST', `/p/${project.id}/api/people`, {
        headers: project.anon,
        body: { nmae: 'x' },
      });
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
      assertMessageIncludes(response, '"nmae"');
    });
    it('bulk: the second row misspells a column → "row 1: ..." VALIDATION_UNKNOWN_COLUMN, none written', async () => {
      const response = await people('POST', '/people/bulk', [{ name: 'a' }, { name: 'b', nicknam: 'c' }]);
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
      assertMessageIncludes(response, /^row 1: table "people" has no column "nicknam"/);
      assert.match(response.body.error.suggestion, /Did you mean "nickname"\?/);
      assert.deepEqual(await rows('people'), []);
    });
    it('PATCH {"nickanme": "x"} → VALIDATION_UNKNOWN_COLUMN suggesting nickname', async () => {
      const created = await people('POST', '/people', { name: 'ada' });
      assert.equal(created.status, 201, created.text);
      const response = await people('PATCH', `/people/${created.body.data.id}`, { nickanme: 'x' });
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
      assert.match(response.body.error.suggestion, /Did you mean "nickname"\?/);
    });
    it('a name near no column → VALIDATION_UNKNOWN_COLUMN listing the columns, no "Did you mean"', async () => {
      const response = await people('POST', '/people', { zzzzzz: 1 });
      assertError(response, 400, 'VALIDATION_UNKNOWN_COLUMN');
      assert.doesNotMatch(response.body.error.suggestion, /Did you mean/);
      assert.match(response.body.error.suggestion, /name, nickname/);
    });
  });
});
