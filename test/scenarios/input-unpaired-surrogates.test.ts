/**
 * Unpaired UTF-16 surrogates (issue 21, defect 3): a JSON escape such as "\ud800" with no
 * partner is not a character; SQLite stored it as three U+FFFD and PostgreSQL as one. Every
 * place text enters refuses it with 400 VALIDATION_FAILED naming the field, and nothing is
 * written. Paired surrogates (emoji) are accepted and read back the same on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertMessageIncludes } from '../helpers/assert-error.js';
import { createAuthProject } from '../helpers/auth-fixtures.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../helpers/test-server.js';

const LONE_HIGH = 'a\ud800b';
const LONE_LOW = 'x\udc00';
const EMOJI = '\ud83d\ude00';

let server: TestServer;
let project: TestProject;
let users: TestProject;
const api = (path = '') => `/p/${project.id}/api/notes${path}`;
const countNotes = async (): Promise<number> => {
  const response = await server.request('GET', api(), { headers: project.admin });
  assert.equal(response.status, 200, response.text);
  return response.body.meta.total;
};

before(async () => {
  server = await startTestServer();
  project = await createProject(server);
  await putTable(server, project, 'notes', {
    columns: [
      { name: 'title', type: 'text', required: true, max_length: 3 },
      { name: 'doc', type: 'json' },
    ],
  });
  users = await createAuthProject(server, { columns: [{ name: 'nickname', type: 'text' }] });
});
after(() => server.close());

describe('data API bodies holding an unpaired surrogate → 400 VALIDATION_FAILED, nothing written', () => {
  const cases: [string, string, string, unknown, string][] = [
    ['create with a lone high surrogate in a text column', 'POST', '', { title: LONE_HIGH }, 'title'],
    ['create with a lone low surrogate in a text column', 'POST', '', { title: LONE_LOW }, 'title'],
    ['create with one inside a json value', 'POST', '', { title: 't', doc: { a: [1, LONE_HIGH] } }, 'doc'],
    ['create with one in a json key', 'POST', '', { title: 't', doc: { 'k\udfff': 1 } }, 'doc'],
    ['bulk create naming the row index', 'POST', '/bulk', [{ title: 'ok' }, { title: LONE_LOW }], 'row 1: title:'],
  ];
  for (const [name, method, path, body, field] of cases) {
    it(`${name} → 400 VALIDATION_FAILED naming ${field}`, async () => {
      const response = await server.request(method, api(path), { headers: project.admin, body });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, field);
      assertMessageIncludes(response, /surrogate/);
      assert.equal(await countNotes(), 0);
    });
  }

  it('PATCH with a lone surrogate → 400 VALIDATION_FAILED naming title; the row is unchanged', async () => {
    const created = await server.request('POST', api(), { headers: project.admin, body: { title: 'old' } });
    assert.equal(created.status, 201, created.text);
    try {
      const response = await server.request('PATCH', api(`/${created.body.data.id}`), {
        headers: project.admin,
        body: { title: LONE_HIGH },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, 'title');
      const row = await server.request('GET', api(`/${created.body.data.id}`), { headers: project.admin });
      assert.equal(row.body.data.title, 'old');
    } finally {
      await server.request('DELETE', api(`/${created.body.data.id}`), { headers: project.admin });
    }
  });

  it('paired surrogates (an emoji, escaped) are stored and read as sent; max_length counts code points', async () => {
    // "😀😀😀" is 3 code points but 6 UTF-16 units: it fits max_length 3.
    const created = await server.request('POST', api(), {
      rawBody: JSON.stringify({ title: EMOJI.repeat(3), doc: { [EMOJI]: EMOJI } }).replace(
        /[\ud800-\udfff]/g,
        (unit) => `\\u${unit.charCodeAt(0).toString(16)}`,
      ),
      headers: { ...project.admin, 'content-type': 'application/json' },
    });
    assert.equal(created.status, 201, created.text);
    const row = await server.request('GET', api(`/${created.body.data.id}`), { headers: project.admin });
    assert.equal(row.body.data.title, '😀😀😀');
    assert.deepEqual(row.body.data.doc, { '😀': '😀' });
    const tooLong = await server.request('POST', api(), { headers: project.admin, body: { title: '😀😀😀😀' } });
    assertError(tooLong, 400, 'VALIDATION_FAILED');
    await server.request('DELETE', api(`/${created.body.data.id}`), { headers: project.admin });
  });
});

describe('query parameters cannot carry a lone surrogate: a CESU-8 spelling is plain text, never a 500', () => {
  // A URL cannot hold a lone surrogate (encodeURIComponent throws; %ED%A0%80 is not UTF-8, so
  // the whole value stays percent-encoded as written). It is then text compared as such, a
  // filter that does not parse, or a bad name: a 200 or a 400, never a 500. The parsers refuse a
  // lone surrogate themselves too (unit tests), for filters that arrive in bodies or files.
  const cases: [string, string, number][] = [
    ['filter value', `filter=${encodeURIComponent('title = "')}%ED%A0%80${encodeURIComponent('"')}`, 400],
    ['shorthand value', 'title=eq.%ED%A0%80', 200],
    ['sort', 'sort=%ED%A0%80', 400],
    ['select', 'select=%ED%A0%80', 400],
    ['expand', 'expand=%ED%A0%80', 400],
    ['cursor', 'after=%ED%A0%80', 400],
  ];
  for (const [name, query, status] of cases) {
    it(`${name} → ${status}`, async () => {
      const response = await server.request('GET', api(`?${query}`), { headers: project.admin });
      assert.equal(response.status, status, response.text);
      if (status === 200) assert.equal(response.body.data.length, 0);
      else
        assert.ok(
          [
            'VALIDATION_FILTER',
            'VALIDATION_FAILED',
            'VALIDATION_UNKNOWN_COLUMN',
            'VALIDATION_CURSOR',
            'VALIDATION_EXPAND',
          ].includes(response.body.error.code) || response.body.error.code.startsWith('VALIDATION'),
          response.text,
        );
    });
  }
});

describe('a filter that arrives in a body (a realtime topic) holding a lone surrogate', () => {
  it('POST /realtime with a filter topic holding one → 400 VALIDATION_FAILED naming subscriptions[0]', async () => {
    const topic = `notes?filter=${encodeURIComponent('title = "')}${LONE_HIGH}${encodeURIComponent('"')}`;
    const response = await server.request('POST', `/p/${project.id}/realtime`, {
      headers: project.admin,
      body: { client_id: 'any', subscriptions: [topic] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'subscriptions[0]');
  });
});

describe('auth bodies holding an unpaired surrogate → 400 VALIDATION_FAILED, no user created', () => {
  const countUsers = async (): Promise<number> => {
    const response = await server.request('GET', `/p/${users.id}/api/users`, { headers: users.admin });
    assert.equal(response.status, 200, response.text);
    return response.body.meta.total;
  };
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['signup email', 'signup', { email: `ada${LONE_HIGH}@example.com`, password: 'correct horse battery' }, 'email'],
    ['signup password', 'signup', { email: 'ada@example.com', password: `correct horse ${LONE_LOW}` }, 'password'],
    [
      'signup custom column',
      'signup',
      { email: 'ada@example.com', password: 'correct horse battery', nickname: LONE_HIGH },
      'nickname',
    ],
    ['login email', 'login', { email: `ada${LONE_HIGH}@example.com`, password: 'correct horse battery' }, 'email'],
    [
      'forgot-password email',
      'forgot-password',
      { email: `ada${LONE_HIGH}@example.com`, redirect_url: 'https://app.example.com/reset' },
      'email',
    ],
    [
      'reset-password new password',
      'reset-password',
      { token: 'x', new_password: `correct horse ${LONE_LOW}` },
      'new_password',
    ],
  ];
  for (const [name, route, body, field] of cases) {
    it(`${name} → 400 VALIDATION_FAILED naming ${field}`, async () => {
      const response = await server.request('POST', `/p/${users.id}/auth/${route}`, { body });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, field);
      assert.equal(await countUsers(), 0);
    });
  }
});

describe('settings, table definitions and project names holding an unpaired surrogate → 400 VALIDATION_FAILED', () => {
  const settingsCases: [string, Record<string, unknown>, string][] = [
    ['app_name', { app_name: LONE_HIGH }, 'app_name'],
    ['email_from', { email_from: `Ada ${LONE_LOW} <ada@example.com>` }, 'email_from'],
    [
      'allowed_redirect_origins',
      { allowed_redirect_origins: [`https://app${LONE_HIGH}.example.com`] },
      'allowed_redirect_origins[0]',
    ],
  ];
  for (const [name, patch, field] of settingsCases) {
    it(`PATCH settings ${name} → 400 VALIDATION_FAILED naming ${field}; settings unchanged`, async () => {
      const before = await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin });
      const response = await server.request('PATCH', `/p/${project.id}/v1/settings`, {
        headers: project.admin,
        body: patch,
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, field);
      const afterwards = await server.request('GET', `/p/${project.id}/v1/settings`, { headers: project.admin });
      assert.deepEqual(afterwards.body, before.body);
    });
  }

  const tableCases: [string, unknown, string][] = [
    ['an enum value', { columns: [{ name: 'status', type: 'text', enum: ['open', LONE_HIGH] }] }, 'columns[0].enum[1]'],
    ['a default', { columns: [{ name: 'status', type: 'text', default: LONE_LOW }] }, 'columns[0].default'],
    [
      'a rule',
      { columns: [{ name: 'status', type: 'text' }], rules: { list: `status = "${LONE_HIGH}"` } },
      'rules.list',
    ],
    ['a column name', { columns: [{ name: `s${LONE_HIGH}`, type: 'text' }] }, 'columns[0].name'],
  ];
  for (const [name, definition, field] of tableCases) {
    it(`PUT table with ${name} → 400 VALIDATION_FAILED naming ${field}; no table created`, async () => {
      const response = await server.request('PUT', `/p/${project.id}/v1/tables/shaky`, {
        headers: project.admin,
        body: definition,
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assertMessageIncludes(response, field);
      assertError(
        await server.request('GET', `/p/${project.id}/v1/tables/shaky`, { headers: project.admin }),
        404,
        'TABLE_NOT_FOUND',
      );
    });
  }

  it('POST /v1/projects, a lone surrogate in the name → 400 VALIDATION_FAILED naming name; none made', async () => {
    const platform = { 'x-platform-key': PLATFORM_KEY };
    const before = await server.request('GET', '/v1/projects', { headers: platform });
    const response = await server.request('POST', '/v1/projects', {
      headers: platform,
      body: { name: `My ${LONE_HIGH}app` },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertMessageIncludes(response, 'name');
    const afterwards = await server.request('GET', '/v1/projects', { headers: platform });
    assert.equal(afterwards.body.data.length, before.body.data.length);
  });
});
