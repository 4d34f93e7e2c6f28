/**
 * Scenarios for the `cors_origins` setting (contract §8) through GET and PATCH
 * /p/{id}/v1/settings: the default, normalisation, `["*"]` and `[]`, and every refused value
 * (400 VALIDATION_FAILED naming the setting, with the stored value unchanged).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createProject, startTestServer, type TestProject, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let project: TestProject;
before(async () => {
  server = await startTestServer();
  project = await createProject(server);
});
after(() => server.close());

const patch = (body: unknown, target = project) =>
  server.request('PATCH', `/p/${target.id}/v1/settings`, { headers: target.admin, body });
const stored = async (target = project) =>
  (await server.request('GET', `/p/${target.id}/v1/settings`, { headers: target.admin })).body.data.cors_origins;

describe('cors_origins: accepted values', () => {
  it('a new project → ["*"]', async () => {
    assert.deepEqual(await stored(await createProject(server)), ['*']);
  });

  const accepted: [string, unknown[], string[]][] = [
    [
      'origins → stored normalised (lower case, default port dropped, trailing slash dropped, duplicates merged)',
      [
        'HTTPS://App.Example.COM:443',
        'http://localhost:5173',
        'https://app.example.com/',
        'http://127.0.0.1:8080',
        'http://[::1]:3000',
      ],
      ['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000'],
    ],
    ['[] → no origin allowed', [], []],
    ['["*"] → every origin', ['*'], ['*']],
    ['["*", "*"] → ["*"]', ['*', '*'], ['*']],
    [
      'an internationalised host → its punycode form (what browsers send)',
      ['https://bücher.example'],
      ['https://xn--bcher-kva.example'],
    ],
  ];
  for (const [name, value, expected] of accepted) {
    it(`${name}: 200, and GET reads it back`, async () => {
      const response = await patch({ cors_origins: value });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.cors_origins, expected);
      assert.deepEqual(await stored(), expected);
    });
  }

  it('PATCH of another setting keeps cors_origins', async () => {
    await patch({ cors_origins: ['https://keep.example.com'] });
    const response = await patch({ app_name: 'Keep' });
    assert.deepEqual(response.body.data.cors_origins, ['https://keep.example.com']);
  });
});

describe('cors_origins: refused values → 400 VALIDATION_FAILED, setting unchanged', () => {
  const BEFORE = ['https://before.example.com'];
  before(async () => {
    assert.equal((await patch({ cors_origins: BEFORE })).status, 200);
  });

  const refused: [string, unknown][] = [
    ['an origin with a path', ['https://app.example.com/app']],
    ['an origin with a query', ['https://app.example.com?x=1']],
    ['an origin with a fragment', ['https://app.example.com#top']],
    ['an origin with userinfo', ['https://user:pw@app.example.com']],
    ['a wildcard inside an origin', ['https://*.example.com']],
    ['a wildcard port', ['https://app.example.com:*']],
    ['"*" mixed with origins', ['*', 'https://app.example.com']],
    ['an origin then "*"', ['https://app.example.com', '*']],
    ['another scheme', ['ftp://app.example.com']],
    ['no scheme', ['app.example.com']],
    ['"null" (the opaque origin)', ['null']],
    ['an empty string', ['']],
    ['a number in the list', [42]],
    ['null in the list', [null]],
    ['an object in the list', [{ origin: 'https://app.example.com' }]],
    ['a string instead of a list', 'https://app.example.com'],
    ['"*" as a string instead of a list', '*'],
    ['null instead of a list', null],
    ['more than 100 origins', Array.from({ length: 101 }, (_, i) => `https://app${i}.example.com`)],
  ];
  for (const [name, value] of refused) {
    it(`${name} → 400 VALIDATION_FAILED naming cors_origins; still ${JSON.stringify(BEFORE)}`, async () => {
      const response = await patch({ cors_origins: value });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'cors_origins');
      assert.deepEqual(await stored(), BEFORE);
    });
  }

  it('a bad cors_origins next to a good setting: nothing of the PATCH is stored', async () => {
    const response = await patch({ app_name: 'Changed', cors_origins: ['https://a.example.com/path'] });
    assertError(response, 400, 'VALIDATION_FAILED');
    const settings = (await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin })).body
      .data;
    assert.notEqual(settings.app_name, 'Changed');
    assert.deepEqual(settings.cors_origins, BEFORE);
  });

  it('"*" mixed with origins: the message says "*" must stand alone', async () => {
    assertMessageIncludes(await patch({ cors_origins: ['*', 'https://app.example.com'] }), '"*"');
  });
});

describe('cors_origins needs the admin key', () => {
  it('no key → 401 AUTH_REQUIRED; the pk_ key → 401 AUTH_INVALID_KEY', async () => {
    assertError(
      await server.request('PATCH', `/p/${project.id}/v1/settings`, { body: { cors_origins: [] } }),
      401,
      'AUTH_REQUIRED',
    );
    assertError(
      await server.request('PATCH', `/p/${project.id}/v1/settings`, {
        headers: { 'x-admin-key': project.publishableKey },
        body: { cors_origins: [] },
      }),
      401,
      'AUTH_INVALID_KEY',
    );
  });
});
