/**
 * The error envelope (contract §7) on everything that is not a route's own answer: unknown
 * routes, bad JSON, prototype poisoning, content types, body and header sizes, malformed
 * HTTP and server faults. No response ever carries a stack trace.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertEnvelope, assertError } from '../helpers/assert-error.js';
import { destroyProjectStorage } from '../helpers/storage-inspect.js';
import {
  createProject,
  PLATFORM_KEY,
  putTable,
  startTestServer,
  type TestProject,
  type TestResponse,
  type TestServer,
} from '../helpers/test-server.js';

const STACK_TRACE = /\n\s+at |\bat [^\s]+ \(|\.ts:\d+|\.js:\d+|node_modules|node:internal/;

/** Sends raw bytes over TCP and returns the status line, headers and parsed body. */
async function rawRequest(url: string, payload: string): Promise<{ status: number; body: unknown; text: string }> {
  const { hostname, port } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(payload));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('raw request timed out')));
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  return { status, body, text: bodyText };
}

describe('error envelope', () => {
  let server: TestServer;
  let project: TestProject;
  const seen: TestResponse[] = [];
  const send = async (method: string, route: string, options: Parameters<TestServer['request']>[2] = {}) => {
    const response = await server.request(method, route, options);
    seen.push(response);
    return response;
  };

  before(async () => {
    server = await startTestServer();
    project = await createProject(server, 'errors-main');
    await putTable(server, project, 'notes', {
      columns: [{ name: 'text', type: 'text' }],
      rules: { list: '', create: '' },
    });
  });
  after(() => server.close());

  describe('unknown routes → 404 NOT_FOUND', () => {
    const routes: [string, string][] = [
      ['GET', '/'],
      ['GET', '/nope'],
      ['POST', '/v1/nope'],
      ['GET', '/v2/projects'],
      ['GET', '/p/errors-main'],
      ['GET', '/p/errors-main/api'],
      ['GET', '/p/errors-main/api/notes/some-id/extra'],
      ['GET', '/p/errors-main/v2/tables'],
    ];
    for (const [method, route] of routes) {
      it(`${method} ${route}`, async () => {
        const response = await send(method, route, { headers: project.admin });
        assertError(response, 404, 'NOT_FOUND');
      });
    }
  });

  describe('a method the path does not have → 405 METHOD_NOT_ALLOWED with Allow', () => {
    const routes: [string, string, string][] = [
      ['PUT', '/v1/projects', 'GET, HEAD, POST'],
      ['DELETE', '/health', 'GET, HEAD'],
      ['PUT', '/p/errors-main/api/notes', 'GET, HEAD, POST, PATCH, DELETE, OPTIONS'],
      ['POST', '/p/errors-main/v1/tables', 'GET, HEAD'],
    ];
    for (const [method, route, allow] of routes) {
      it(`${method} ${route}`, async () => {
        const response = await send(method, route, { headers: project.admin });
        assertError(response, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(response.headers.get('allow'), allow);
      });
    }
  });

  describe('bad JSON → 400 INVALID_JSON', () => {
    const bodies: [string, string][] = [
      ['an unclosed object', '{"name": "x"'],
      ['a missing value', '{"name":}'],
      ['single quotes', "{'name': 'x'}"],
      ['trailing garbage', '{"name": "x"} extra'],
      ['a bare word', 'hello'],
      ['a trailing comma', '{"name": "x",}'],
      ['only whitespace', '   '],
    ];
    const targets = (): [string, string, Record<string, string>][] => [
      ['POST', '/v1/projects', { 'x-platform-key': PLATFORM_KEY }],
      ['PUT', `/p/${project.id}/v1/tables/notes`, project.admin],
      ['POST', `/p/${project.id}/api/notes`, project.admin],
      ['POST', `/p/${project.id}/api/notes/bulk`, project.anon],
      ['PATCH', `/p/${project.id}/api/notes/any-id`, project.admin],
    ];
    for (const [label, rawBody] of bodies) {
      it(`${label} on every route with a body`, async () => {
        for (const [method, route, headers] of targets()) {
          const response = await send(method, route, {
            headers: { ...headers, 'content-type': 'application/json' },
            rawBody,
          });
          assert.equal(response.status, 400, `${method} ${route}: ${response.text}`);
          assertError(response, 400, 'INVALID_JSON');
        }
      });
    }
  });

  describe('prototype poisoning → 400 INVALID_JSON, and the server is unaffected', () => {
    const bodies: [string, string][] = [
      ['__proto__ at the top', '{"text": "x", "__proto__": {"polluted": true}}'],
      ['__proto__ nested', '{"text": "x", "meta": {"deep": {"__proto__": {"polluted": true}}}}'],
      ['constructor.prototype', '{"text": "x", "constructor": {"prototype": {"polluted": true}}}'],
      ['__proto__ in a bulk row', '[{"text": "x"}, {"__proto__": {"polluted": true}}]'],
    ];
    for (const [label, rawBody] of bodies) {
      it(label, async () => {
        const route = rawBody.startsWith('[') ? `/p/${project.id}/api/notes/bulk` : `/p/${project.id}/api/notes`;
        const response = await send('POST', route, {
          headers: { ...project.admin, 'content-type': 'application/json' },
          rawBody,
        });
        assertError(response, 400, 'INVALID_JSON');
      });
    }
    it('no row was written and new objects carry no polluted property', async () => {
      const list = await send('GET', `/p/${project.id}/api/notes`, { headers: project.admin });
      assert.equal(list.body.meta.total, 0);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      const created = await send('POST', `/p/${project.id}/api/notes`, {
        headers: project.admin,
        body: { text: 'clean' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.data.polluted, undefined);
    });
  });

  describe('content types', () => {
    const types = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/octet-stream',
    ];
    for (const type of types) {
      it(`${type} → 415 UNSUPPORTED_MEDIA_TYPE`, async () => {
        for (const [method, route, headers] of [
          ['POST', '/v1/projects', { 'x-platform-key': PLATFORM_KEY }],
          ['POST', `/p/${project.id}/api/notes`, project.admin],
          ['PUT', `/p/${project.id}/v1/tables/notes`, project.admin],
        ] as const) {
          const response = await send(method, route, {
            headers: { ...headers, 'content-type': type },
            rawBody: 'name=x',
          });
          assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
        }
      });
    }
    it('application/json with a charset is accepted', async () => {
      const response = await send('POST', `/p/${project.id}/api/notes`, {
        headers: { ...project.admin, 'content-type': 'application/json; charset=utf-8' },
        rawBody: '{"text": "charset"}',
      });
      assert.equal(response.status, 201, response.text);
    });
  });

  describe('sizes', () => {
    const big = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });
    it('a body over 1 MiB on the platform API → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await send('POST', '/v1/projects', {
        headers: { 'x-platform-key': PLATFORM_KEY, 'content-type': 'application/json' },
        rawBody: big(1024 * 1024 + 10),
      });
      assertError(response, 413, 'PAYLOAD_TOO_LARGE');
    });
    it('a body over 1 MiB on the schema API → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await send('PUT', `/p/${project.id}/v1/tables/notes`, {
        headers: { ...project.admin, 'content-type': 'application/json' },
        rawBody: big(1024 * 1024 + 10),
      });
      assertError(response, 413, 'PAYLOAD_TOO_LARGE');
    });
    it('a Content-Length over the limit is refused before the body is read → 413', async () => {
      const response = await rawRequest(
        server.url,
        `POST /p/${project.id}/api/notes HTTP/1.1\r\nHost: x\r\nX-Admin-Key: ` +
          `${project.adminKey}\r\nContent-Type: application/json\r\nContent-Length: ` +
          `${50 * 1024 * 1024}\r\nConnection: close\r\n\r\n{"text":`,
      );
      assert.equal(response.status, 413, response.text);
      assertEnvelope(response);
    });
    it('a 40 KB URL → 431 HEADERS_TOO_LARGE', async () => {
      const response = await send('GET', `/p/${project.id}/api/notes?filter=${'x'.repeat(40_000)}`, {
        headers: project.admin,
      });
      assertError(response, 431, 'HEADERS_TOO_LARGE');
    });
    it('a malformed HTTP request → 400 BAD_REQUEST', async () => {
      const response = await rawRequest(server.url, 'THIS IS NOT HTTP\r\n\r\n');
      assertError(response, 400, 'BAD_REQUEST');
    });
    it('request headers too large → 431 HEADERS_TOO_LARGE', async () => {
      const response = await send('GET', '/health', { headers: { 'x-filler': 'y'.repeat(40_000) } });
      assertError(response, 431, 'HEADERS_TOO_LARGE');
    });
    for (const route of ['/p/errors-main/api/notes/%E0%A4%A', '/p/%zz/api/notes']) {
      it(`a path that is not valid percent-encoding (${route}) → 400 BAD_REQUEST`, async () => {
        assertError(await send('GET', route, { headers: project.admin }), 400, 'BAD_REQUEST');
      });
    }
    it('a path segment longer than any id → 404 NOT_FOUND', async () => {
      assertError(
        await send('GET', `/p/errors-main/api/notes/${'a'.repeat(300)}`, { headers: project.admin }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('server faults', () => {
    it('a project whose database file vanished → 500 INTERNAL_ERROR, no stack, with a request id', async () => {
      const dataDir = server.dataDir;
      const faulty = await startTestServer({}, { dataDir: `${dataDir}-fault` });
      try {
        const broken = await createProject(faulty, 'broken-one');
        await faulty.built.app.close();
        await destroyProjectStorage(faulty.built.services.config, 'broken-one');
        const restarted = await startTestServer({}, { dataDir: `${dataDir}-fault` });
        try {
          const response = await restarted.request('GET', '/p/broken-one/api/anything', { headers: broken.admin });
          seen.push(response);
          assertError(response, 500, 'INTERNAL_ERROR');
          assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
          assert.ok(response.body.error.suggestion.includes('x-request-id'), response.body.error.suggestion);
        } finally {
          await restarted.close();
        }
      } finally {
        rmSync(`${dataDir}-fault`, { recursive: true, force: true });
      }
    });
  });

  it('no response in this file carried a stack trace, and every one was the envelope', () => {
    assert.ok(seen.length > 50, `checked ${seen.length} responses`);
    for (const response of seen) {
      assert.doesNotMatch(response.text, STACK_TRACE);
      if (response.status >= 400) assertEnvelope(response);
    }
  });
});
