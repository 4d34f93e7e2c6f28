/**
 * The pure parts of CORS (contract §8): which URLs are CORS paths (and of which project), and
 * the Allow-Origin a setting gives an origin.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedOrigin, corsProjectId } from '../../../src/http/cors.js';

describe('corsProjectId: the data, auth and realtime paths, never platform or admin ones', () => {
  const cases: [string, string | undefined][] = [
    ['/p/demo/api/notes', 'demo'],
    ['/p/demo/api/notes/0192-abc', 'demo'],
    ['/p/demo/api/notes/bulk', 'demo'],
    ['/p/demo/api/notes?filter=a%20%3D%201', 'demo'],
    ['/p/demo/api', 'demo'],
    ['/p/demo/api/', 'demo'],
    ['/p/demo/auth/login', 'demo'],
    ['/p/demo/auth/verify?token=x', 'demo'],
    ['/p/demo/realtime', 'demo'],
    ['/p/demo/realtime?x=1', 'demo'],
    ['/p/%64emo/api/notes', 'demo'],
    ['/p/demo/v1/settings', undefined],
    ['/p/demo/v1/tables/api', undefined],
    ['/p/demo/v1/openapi.json', undefined],
    ['/p/demo/docs', undefined],
    ['/v1/projects', undefined],
    ['/v1/projects/demo', undefined],
    ['/p/demo/apis/notes', undefined],
    ['/p/demo/authx', undefined],
    ['/p/demo/realtimes', undefined],
    ['/p//api/notes', undefined],
    ['/P/demo/api/notes', undefined],
    ['/health', undefined],
    ['/_/', undefined],
    ['/api/notes', undefined],
  ];
  for (const [url, expected] of cases) {
    it(`${url} → ${expected ?? 'not a CORS path'}`, () => assert.equal(corsProjectId(url), expected));
  }
});

describe('allowedOrigin', () => {
  const cases: [string, readonly string[] | undefined, string, string | undefined][] = [
    ['["*"] allows any origin as *', ['*'], 'https://evil.example', '*'],
    ['an unknown project (no setting) → *', undefined, 'https://evil.example', '*'],
    [
      'a listed origin → itself',
      ['https://a.example', 'http://localhost:5173'],
      'http://localhost:5173',
      'http://localhost:5173',
    ],
    ['an unlisted origin → refused', ['https://a.example'], 'https://b.example', undefined],
    ['exact match only: another scheme', ['https://a.example'], 'http://a.example', undefined],
    ['exact match only: a subdomain', ['https://a.example'], 'https://www.a.example', undefined],
    ['exact match only: a trailing slash', ['https://a.example'], 'https://a.example/', undefined],
    ['"null" on a list → refused', ['https://a.example'], 'null', undefined],
    ['[] refuses everything', [], 'https://a.example', undefined],
  ];
  for (const [name, setting, origin, expected] of cases) {
    it(name, () => assert.equal(allowedOrigin(setting, origin), expected));
  }
});
