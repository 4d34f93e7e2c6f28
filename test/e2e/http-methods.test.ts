/**
 * Every method of the IANA HTTP method registry, sent with and without a body and with a JSON,
 * text/plain or no Content-Type, to a data, auth, admin, platform and unknown path of the
 * real server process over real HTTP: never a 5xx, every answer with a body is a success or
 * the error envelope, HEAD answers have no body, and nothing of this is logged as an error.
 * Methods Node's HTTP parser does not know are answered 400 by the server's client-error
 * handler; CONNECT (which Node hands to the server's `connect` listener) gets an answer too.
 * HTTP framing only, no storage: @engine sqlite
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  PROCESS_PLATFORM_KEY as PLATFORM_KEY,
  startServerProcess,
  type ServerProcess,
} from '../helpers/server-process.js';

/** https://www.iana.org/assignments/http-methods (every registered method but `*`). */
const IANA_METHODS = [
  'ACL',
  'BASELINE-CONTROL',
  'BIND',
  'CHECKIN',
  'CHECKOUT',
  'CONNECT',
  'COPY',
  'DELETE',
  'GET',
  'HEAD',
  'LABEL',
  'LINK',
  'LOCK',
  'MERGE',
  'MKACTIVITY',
  'MKCALENDAR',
  'MKCOL',
  'MKREDIRECTREF',
  'MKWORKSPACE',
  'MOVE',
  'OPTIONS',
  'ORDERPATCH',
  'PATCH',
  'POST',
  'PRI',
  'PROPFIND',
  'PROPPATCH',
  'PUT',
  'QUERY',
  'REBIND',
  'REPORT',
  'SEARCH',
  'TRACE',
  'UNBIND',
  'UNCHECKOUT',
  'UNLINK',
  'UNLOCK',
  'UPDATE',
  'UPDATEREDIRECTREF',
  'VERSION-CONTROL',
];

/** [what it is, Content-Type or undefined, body or undefined] */
const VARIANTS: [string, string | undefined, string | undefined][] = [
  ['no body, no Content-Type', undefined, undefined],
  ['no body, JSON Content-Type', 'application/json', undefined],
  ['no body, text/plain', 'text/plain', undefined],
  ['a JSON body', 'application/json', '{"title":"x"}'],
  ['a text/plain body', 'text/plain', 'hello'],
  ['a body without Content-Type', undefined, 'hello'],
];

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * Sends one request on its own connection (a refused method may close it) and resolves with
 * the status and body; `status` 0 means the server closed the connection without answering.
 */
function send(
  base: string,
  method: string,
  route: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, method, path: route, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.on('error', reject);
    });
    // CONNECT answers come as a `connect` event with the socket; read the rest of the body from it.
    request.on('connect', (response, socket, head) => {
      let text = head.toString('utf8');
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      socket.on('error', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.message === 'socket hang up') resolve({ status: 0, body: '' });
      else
        resolve({
          status: -1,
          body: `${error.code} ${error.message} ${(error as { rawPacket?: Buffer }).rawPacket?.toString('utf8') ?? ''}`,
        });
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${route} timed out`)));
    request.end(body);
  });
}

/** Why `answer` breaks the rules, or undefined when it keeps them. */
function brokenRule(method: string, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (answer.status === 0) return 'closed the connection without an answer';
  if (answer.status === -1) return `sent an answer the client could not read: ${answer.body}`;
  if (method === 'HEAD') return answer.body === '' ? undefined : 'a HEAD answer has a body';
  if (answer.status < 300 || answer.body === '') return undefined;
  try {
    const error = (JSON.parse(answer.body) as { error?: Record<string, unknown> }).error;
    const fields = ['code', 'message', 'suggestion'] as const;
    if (
      error &&
      Object.keys(error).length === 3 &&
      fields.every((field) => typeof error[field] === 'string' && (error[field] as string).length > 0)
    )
      return undefined;
  } catch {
    // not JSON: reported below
  }
  return `answered ${answer.status} without the error envelope: ${answer.body.slice(0, 200)}`;
}

describe('every HTTP method, body and content type', () => {
  let server: ServerProcess;
  let dataDir = '';
  let projectId = '';
  let adminKey = '';

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-methods-'));
    server = await startServerProcess(dataDir, { LOG_LEVEL: 'warn' });
    const headers = { 'content-type': 'application/json', 'x-platform-key': PLATFORM_KEY };
    const project = await (
      await fetch(`${server.url}/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'methods' }) })
    ).json();
    projectId = project.data.id;
    adminKey = project.data.admin_key;
    const admin = { 'content-type': 'application/json', 'x-admin-key': adminKey };
    const tables = [
      ['users', { auth_table: true, columns: [{ name: 'name', type: 'text' }] }],
      [
        'tasks',
        {
          columns: [{ name: 'title', type: 'text' }],
          rules: { list: '', view: '', create: '', update: '', delete: '' },
        },
      ],
    ] as const;
    for (const [name, definition] of tables) {
      const response = await fetch(`${server.url}/p/${projectId}/v1/tables/${name}`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify(definition),
      });
      assert.equal(response.status, 201, await response.text());
    }
  });

  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never answers 5xx, always the envelope or a success, HEAD without a body, and logs no error', async () => {
    const paths = [
      `/p/${projectId}/api/tasks`,
      `/p/${projectId}/auth/login`,
      `/p/${projectId}/v1/tables`,
      '/v1/projects',
      '/nope',
    ];
    const broken: string[] = [];
    for (const method of IANA_METHODS) {
      for (const route of paths) {
        for (const [variant, type, body] of VARIANTS) {
          const headers: Record<string, string> = { 'x-admin-key': adminKey, 'x-platform-key': PLATFORM_KEY };
          if (type !== undefined) headers['content-type'] = type;
          const answer = await send(server.url, method, route, headers, body);
          const rule = brokenRule(method, answer);
          if (rule) broken.push(`${method} ${route} (${variant}): ${rule}`);
        }
      }
    }
    assert.equal(broken.length, 0, `${broken.length} answers broke the rules:\n${broken.slice(0, 40).join('\n')}`);
    // Give the process a moment to flush its last log lines.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const errors = server
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)\b/.test(line));
    assert.equal(errors.length, 0, `logged at level error:\n${errors.slice(0, 5).join('\n').slice(0, 2000)}`);
  });
});
