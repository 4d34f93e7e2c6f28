import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isAppError } from '../../../src/errors/app-error.js';
import { MAX_SEARCH_LENGTH, parseSearch } from '../../../src/query/search-parser.js';

const parsed = (text: string) => JSON.parse(JSON.stringify(parseSearch(text)));

describe('search parser', () => {
  const cases: [string, string, unknown][] = [
    ['one word', 'apple', { all: [[['apple']]], none: [] }],
    ['words are ANDed', 'apple pie', { all: [[['apple']], [['pie']]], none: [] }],
    ['a quoted phrase', '"green tea" cup', { all: [[['green', 'tea']], [['cup']]], none: [] }],
    ['an excluded word', 'apple -banana', { all: [[['apple']]], none: [['banana']] }],
    ['an excluded phrase', 'tea -"green tea"', { all: [[['tea']]], none: [['green', 'tea']] }],
    ['or joins its neighbours', 'a b or c', { all: [[['a']], [['b'], ['c']]], none: [] }],
    ['OR in capitals', 'a OR "b c"', { all: [[['a'], ['b', 'c']]], none: [] }],
    ['or at the start is a word', 'or a', { all: [[['or']], [['a']]], none: [] }],
    ['or at the end is a word', 'a or', { all: [[['a']], [['or']]], none: [] }],
    ['or before an exclusion is a word', 'a or -b', { all: [[['a']], [['or']]], none: [['b']] }],
    ['an unclosed quote runs to the end', 'x "a b', { all: [[['x']], [['a', 'b']]], none: [] }],
    ['punctuation inside a word makes a phrase', 'foo-bar', { all: [[['foo', 'bar']]], none: [] }],
    [
      'FTS5 syntax is plain text',
      'NEAR(a b) c* d:e ^f g&h i|j',
      {
        all: [[['NEAR', 'a']], [['b']], [['c']], [['d', 'e']], [['f']], [['g', 'h']], [['i', 'j']]],
        none: [],
      },
    ],
    ['tsquery syntax is plain text', "a:* & !b <-> 'c'", { all: [[['a']], [['b']], [['c']]], none: [] }],
    ['a lone dash is nothing', 'a - b', { all: [[['a']], [['b']]], none: [] }],
    [
      'accents and scripts are kept for the engine',
      'Été Жук 日本語',
      {
        all: [[['Été']], [['Жук']], [['日本語']]],
        none: [],
      },
    ],
    ['line breaks are spaces', 'a\nb\tc', { all: [[['a']], [['b']], [['c']]], none: [] }],
  ];
  for (const [name, text, expected] of cases)
    it(`${name}: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parsed(text), expected);
    });

  const refused: [string, string, RegExp][] = [
    ['only stop characters', '!!! --- *** "" ()', /no word/],
    ['only exclusions', '-a -"b c"', /every term/],
    ['a control character', 'a\u0000b', /control character/],
    ['an escape character', 'a\u001bb', /control character/],
    ['10 KB', 'a '.repeat(5 * 1024), /at most 500/],
    ['too many terms', Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), /33 terms; at most 32/],
  ];
  for (const [name, text, message] of refused)
    it(`${name} → VALIDATION_FILTER`, () => {
      assert.throws(
        () => parseSearch(text),
        (error: unknown) => isAppError(error) && error.code === 'VALIDATION_FILTER' && message.test(error.message),
      );
    });

  it('never throws anything but VALIDATION_FILTER, and keeps no syntax in its tokens', () => {
    const alphabet = fc.constantFrom(
      ...'ab "-:*^&|()\'<>!~\\\u0000\t\n\u0301éЖ日²_ or OR NEAR AND NOT'.split(''),
      'or',
      'NEAR',
      '\u{1F600}',
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 80 }).map((parts) => parts.join('')),
        (text) => {
          let query: ReturnType<typeof parseSearch>;
          try {
            query = parseSearch(text);
          } catch (error) {
            assert.ok(isAppError(error) && error.code === 'VALIDATION_FILTER', String(error));
            return;
          }
          assert.ok(query.all.length > 0);
          for (const phrase of [...query.all.flat(), ...query.none]) {
            assert.ok(phrase.length > 0);
            for (const token of phrase) assert.match(token, /^[\p{L}\p{Nd}\p{Nl}][\p{L}\p{Nd}\p{Nl}\p{M}]*$/u);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts a query of exactly the longest length, in code points as the OpenAPI maxLength counts', () => {
    assert.equal(parseSearch('a'.repeat(MAX_SEARCH_LENGTH)).all.length, 1);
    assert.equal(parseSearch('\u{1D49C}'.repeat(MAX_SEARCH_LENGTH)).all.length, 1);
    assert.throws(() => parseSearch('\u{1D49C}'.repeat(MAX_SEARCH_LENGTH + 1)), /501 characters/);
  });
});
