/**
 * The unpaired-surrogate check (issue 21, defect 3) and the places that use it without HTTP in
 * front: filters and shorthand filters (text from a query or a realtime topic), row values
 * and table definitions read from files (schema apply, import), and the JSON body parser.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors/app-error.js';
import { parseJsonBody } from '../../../src/http/json-body.js';
import {
  containsUnpairedSurrogate,
  findUnpairedSurrogate,
  hasUnpairedSurrogate,
  unpairedSurrogateIndex,
} from '../../../src/lib/unpaired-surrogate.js';
import { applySettingsPatch, DEFAULT_SETTINGS } from '../../../src/projects/settings.js';
import { parseFilter } from '../../../src/query/filter-parser.js';
import { parseShorthand } from '../../../src/query/shorthand.js';
import { parseDefinition } from '../../../src/tables/parse-definition.js';
import { buildRowValidators } from '../../../src/tables/row-validator.js';

/** Asserts `run` throws an AppError with `code` whose message includes every fragment. */
function assertRefused(run: () => unknown, code: string, ...fragments: string[]): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    for (const fragment of fragments)
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`);
    assert.match(error.suggestion, /\\ud800/);
    return true;
  });
}

describe('hasUnpairedSurrogate / unpairedSurrogateIndex', () => {
  const cases: [string, string, number][] = [
    ['plain text', 'hello', -1],
    ['an emoji (a surrogate pair)', 'a😀b', -1],
    ['a lone high surrogate', 'ab\ud800c', 2],
    ['a lone low surrogate', '\udc00', 0],
    ['a high surrogate at the end', 'x\ud83d', 1],
    ['two high surrogates then a low one: the first is alone', '\ud83d\ud83d\ude00', 0],
    ['a pair reversed', '\ude00\ud83d', 0],
  ];
  for (const [name, text, index] of cases) {
    it(`${name} → ${index}`, () => {
      assert.equal(unpairedSurrogateIndex(text), index);
      assert.equal(hasUnpairedSurrogate(text), index >= 0);
    });
  }
});

describe('findUnpairedSurrogate: where in a JSON value', () => {
  const cases: [string, unknown, { path: string; inKey: boolean; escape: string } | undefined][] = [
    ['a clean object', { a: ['😀', { b: 1 }] }, undefined],
    ['a root string', 'x\ud800', { path: '', inKey: false, escape: '\\ud800' }],
    ['a nested array item', { doc: { a: [1, 'x\udc00'] } }, { path: 'doc.a[1]', inKey: false, escape: '\\udc00' }],
    ['a key', { doc: { 'k\udfff': 1 } }, { path: 'doc', inKey: true, escape: '\\udfff' }],
    ['a bulk row', [{ title: 'ok' }, { title: '\ud800' }], { path: '[1].title', inKey: false, escape: '\\ud800' }],
  ];
  for (const [name, value, expected] of cases) {
    it(name, () => {
      assert.deepEqual(findUnpairedSurrogate(value), expected);
      assert.equal(containsUnpairedSurrogate(value), expected !== undefined);
    });
  }
});

describe('parseJsonBody refuses an escaped lone surrogate anywhere', () => {
  it('in a value → VALIDATION_FAILED naming the path', () => {
    assertRefused(() => parseJsonBody('[{"t":"ok"},{"t":"a\\ud800b"}]'), 'VALIDATION_FAILED', 'row 1: t:', '\\ud800');
  });
  it('in a key → VALIDATION_FAILED naming the object', () => {
    assertRefused(() => parseJsonBody('{"doc":{"k\\udc00":1}}'), 'VALIDATION_FAILED', 'doc: a key');
  });
  it('an escaped pair and a literal emoji pass unchanged', () => {
    assert.deepEqual(parseJsonBody('{"a":"\\ud83d\\ude00","b":"😀"}'), { a: '😀', b: '😀' });
  });
});

describe('filters refuse a lone surrogate with its position', () => {
  it('filter= → VALIDATION_FILTER at the character', () => {
    assertRefused(
      () => parseFilter('title = "a\ud800"', 'filter'),
      'VALIDATION_FILTER',
      'filter: an unpaired UTF-16 surrogate \\ud800 (not a character) at character 11',
    );
  });
  it('a rule (rules.list) the same way', () => {
    assertRefused(() => parseFilter('\udc00', 'rules.list'), 'VALIDATION_FILTER', 'rules.list:', 'character 1');
  });
  it('an emoji in a filter string is text like any other', () => {
    assert.equal(parseFilter('title = "😀"').kind, 'comparison');
  });
  it('a shorthand value → VALIDATION_FILTER naming the parameter', () => {
    assertRefused(
      () => parseShorthand('title', 'eq.a\ud800', new Map([['title', 'text']]), '2026-01-01T00:00:00.000Z'),
      'VALIDATION_FILTER',
      'title=eq.',
    );
  });
});

describe('rows and definitions that did not come through HTTP (import, schema apply)', () => {
  const table = parseDefinition('notes', {
    columns: [
      { name: 'title', type: 'text' },
      { name: 'doc', type: 'json' },
    ],
  });
  const validators = buildRowValidators(table);
  it('a bulk row with a lone surrogate → VALIDATION_FAILED naming the row and column', () => {
    assert.throws(
      () => validators.create({ title: 'a\ud800' }, 3),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'VALIDATION_FAILED' &&
        error.message.startsWith('row 3: title:') &&
        /surrogate/.test(error.message),
    );
  });
  it('a json key with one → VALIDATION_FAILED naming the column', () => {
    assert.throws(
      () => validators.update({ doc: { '\udc00': 1 } }),
      (error: unknown) =>
        error instanceof AppError && error.code === 'VALIDATION_FAILED' && error.message.startsWith('doc:'),
    );
  });
  it('an enum value or a default with one → VALIDATION_FAILED', () => {
    assertRefused(
      () => parseDefinition('t', { columns: [{ name: 's', type: 'text', enum: ['a', '\ud800'] }] }),
      'VALIDATION_FAILED',
      's: an enum value',
    );
    assert.throws(
      () => parseDefinition('t', { columns: [{ name: 's', type: 'text', default: '\ud800' }] }),
      (error: unknown) =>
        error instanceof AppError && error.code === 'VALIDATION_FAILED' && /surrogate/.test(error.message),
    );
  });
});

describe('settings patched without HTTP in front', () => {
  it('an app_name or a redirect origin with a lone surrogate → VALIDATION_FAILED naming the setting', () => {
    assertRefused(
      () => applySettingsPatch(DEFAULT_SETTINGS, { app_name: 'My \ud800app' }),
      'VALIDATION_FAILED',
      'settings: app_name',
    );
    assertRefused(
      () =>
        applySettingsPatch(DEFAULT_SETTINGS, {
          allowed_redirect_origins: ['https://a.example.com', 'https://\udc00.example.com'],
        }),
      'VALIDATION_FAILED',
      'allowed_redirect_origins[1]',
    );
  });
  it('an emoji in app_name is kept', () => {
    assert.equal(applySettingsPatch(DEFAULT_SETTINGS, { app_name: 'Shop 😀' }).app_name, 'Shop 😀');
  });
});
