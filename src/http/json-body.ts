/**
 * The JSON body parser for every route: an empty body is no body (a DELETE sent with
 * `Content-Type: application/json` and nothing after it is a DELETE without a body), and a
 * body carrying `__proto__` (or `constructor.prototype`) is refused naming the key and why.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';

// Only bodies whose text could hold such a key are walked (escapes may spell it: "\u005f_proto__").
const MAY_HOLD_FORBIDDEN_KEY = /__proto__|constructor|\\u/;

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
      message: text.trim() === '' ? 'The request body is only whitespace, which is not JSON.' : 'The request body is not valid JSON.',
    });
  }
  if (MAY_HOLD_FORBIDDEN_KEY.test(text)) refuseForbiddenKeys(value);
  return value;
}

/** Walks `value` without recursion (bodies may nest deeply); throws INVALID_JSON at the first forbidden key. */
function refuseForbiddenKeys(value: unknown): void {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: node, path } = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push({ value: item, path: `${path}[${index}]` }));
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`;
      const isPrototypeKey = key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'));
      if (isPrototypeKey) {
        throw new AppError('INVALID_JSON', {
          message: `The body holds the key "${key === '__proto__' ? '__proto__' : 'constructor.prototype'}" (at ${at}), which is refused: in JavaScript it would reach the prototype of every object (prototype pollution).`,
          suggestion: `Remove or rename that key; no column can be named __proto__${key === 'constructor' ? ', and a json value cannot hold "constructor": {"prototype": ...}' : ''}.`,
        });
      }
      pending.push({ value: child, path: at });
    }
  }
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
