/**
 * The JSON body parser for every route: an empty body is no body (a DELETE sent with
 * `Content-Type: application/json` and nothing after it is a DELETE without a body), a
 * body carrying `__proto__` (or `constructor.prototype`) is refused naming the key and why,
 * and so is one holding an unpaired UTF-16 surrogate anywhere (values and keys): every
 * endpoint's text, rows and auth fields and settings and table definitions alike, is then
 * well-formed before any of them reads it.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { findUnpairedSurrogate, UNPAIRED_SURROGATE_SUGGESTION } from '../lib/unpaired-surrogate.js';

// Only bodies whose text could hold such a key are walked (escapes may spell it: "\u005f_proto__").
const MAY_HOLD_FORBIDDEN_KEY = /__proto__|constructor|\\u/;
// Decoded UTF-8 never holds a lone surrogate (bad bytes become U+FFFD): only a JSON escape
// of one (\ud800-\udfff) can put it there, so bodies without such an escape are not walked.
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]/;

/**
 * Parses a request body: undefined for an empty one, else the JSON value. Throws INVALID_JSON
 * for text that is not JSON, or that holds a key that could reach an object's prototype.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('INVALID_JSON', {
      message:
        text.trim() === ''
          ? 'The request body is only whitespace, which is not JSON.'
          : 'The request body is not valid JSON.',
    });
  }
  if (MAY_HOLD_FORBIDDEN_KEY.test(text)) refuseForbiddenKeys(value);
  if (MAY_HOLD_SURROGATE.test(text)) refuseUnpairedSurrogates(value);
  return value;
}

/**
 * Throws VALIDATION_FAILED naming the field (`title`, `row 2: title` in a bulk body,
 * `doc.a[0]` in a json value) that holds an unpaired surrogate: no engine can store it as sent.
 */
function refuseUnpairedSurrogates(value: unknown): void {
  const found = findUnpairedSurrogate(value);
  if (found === undefined) return;
  const where = describePath(found.path);
  throw new AppError('VALIDATION_FAILED', {
    message: found.inKey
      ? `${where}: a key holds an unpaired UTF-16 surrogate ` +
        `(${found.escape}), which is not a character and cannot be stored.`
      : `${where}: holds an unpaired UTF-16 surrogate (${found.escape}), ` +
        'which is not a character and cannot be stored.',
    suggestion: UNPAIRED_SURROGATE_SUGGESTION,
  });
}

/** Walks `value` without recursion (bodies may nest deeply); throws INVALID_JSON at the first forbidden key. */
function refuseForbiddenKeys(value: unknown): void {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: node, path } = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) pending.push({ value: item, path: `${path}[${index}]` });
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`;
      const isPrototypeKey =
        key === '__proto__' ||
        (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'));
      if (isPrototypeKey) {
        throw new AppError('INVALID_JSON', {
          message:
            'The body holds the key ' +
            `"${key === '__proto__' ? '__proto__' : 'constructor.prototype'}" (at ${at}), which is ` +
            'refused: in JavaScript it would reach the prototype of every object (prototype pollution).',
          suggestion:
            'Remove or rename that key; no column can be named __proto__' +
            (key === 'constructor' ? ', and a json value cannot hold "constructor": {"prototype": ...}' : '') +
            '.',
        });
      }
      pending.push({ value: child, path: at });
    }
  }
}

/**
 * A path for messages. A body that is an array is a bulk body: its items are rows, and bulk
 * errors start with `row N:` (docs/api.md), so `[2].title` reads `row 2: title`.
 */
function describePath(path: string): string {
  if (path === '') return 'the body';
  const row = /^\[(\d+)\]\.?(.*)$/.exec(path);
  if (row === null) return path;
  return row[2] === '' ? `row ${row[1]}` : `row ${row[1]}: ${row[2]}`;
}

/** Replaces Fastify's JSON parser with `parseJsonBody` (route body limits still apply). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
