/**
 * The OpenAPI `pattern` of shorthand filter parameters (src/query/shorthand-pattern.ts)
 * accepts exactly what the shorthand parser accepts, per column type: named scenarios, then
 * thousands of generated inputs built from the syntax's own pieces, each checked against
 * `parseShorthand` itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseShorthand } from '../../../src/query/shorthand.js';
import { shorthandPattern } from '../../../src/query/shorthand-pattern.js';
import type { ValueType } from '../../../src/query/sql-tree.js';

const TYPES: readonly ValueType[] = ['text', 'integer', 'number', 'boolean', 'timestamp', 'json'];
const NOW = '2026-11-24T12:00:00.000Z';

function parses(type: ValueType, raw: string): boolean {
  try {
    parseShorthand('c', raw, new Map([['c', type]]), NOW);
    return true;
  } catch {
    return false;
  }
}

const matches = (type: ValueType, raw: string): boolean => new RegExp(shorthandPattern(type), 'u').test(raw);

describe('shorthandPattern: what the document says a shorthand filter may be', () => {
  const scenarios: [type: ValueType, raw: string, accepted: boolean][] = [
    ['text', 'eq.hello world', true],
    ['text', 'hello', false],
    ['text', 'eq', false],
    ['text', 'eq.', true],
    ['text', 'ilike.*milk*', true],
    ['text', 'in.(open,"on hold","a,b")', true],
    ['text', 'in.("say \\"hi\\"")', true],
    ['text', 'in.("unterminated)', false],
    ['text', 'in.( )', false],
    ['text', 'in.()', false],
    ['text', 'is.null', true],
    ['text', 'is.true', false],
    ['integer', 'gte.3', true],
    ['integer', 'gte.3.5', false],
    ['integer', 'like.3', false],
    ['integer', 'in.( 1 , 2,"3" )', true],
    ['integer', `in.(${Array.from({ length: 100 }, (_, i) => i).join(',')})`, true],
    ['integer', `in.(${Array.from({ length: 101 }, (_, i) => i).join(',')})`, false],
    ['number', 'lt.1e3', true],
    ['number', 'lt.0x1F', true],
    ['number', 'lt.', false],
    ['number', 'lt.abc', false],
    ['boolean', 'is.true', true],
    ['boolean', 'eq.false', true],
    ['boolean', 'eq.yes', false],
    ['timestamp', 'lt.@now', true],
    ['timestamp', 'lte.2024-01-31T12:00:00+01:00', true],
    ['timestamp', 'eq.2024-01-31', true],
    ['timestamp', 'eq.yesterday', false],
    ['json', 'is.not_null', true],
    ['json', 'eq.{}', false],
  ];
  for (const [type, raw, accepted] of scenarios) {
    const shown = raw.length > 60 ? `${raw.slice(0, 60)}...` : raw;
    it(`${type} column: "${shown}" is ${accepted ? 'accepted' : 'refused'} by the pattern and the parser alike`, () => {
      assert.equal(parses(type, raw), accepted, 'the parser');
      assert.equal(matches(type, raw), accepted, 'the pattern');
    });
  }

  it('agrees with parseShorthand on 30,000 generated inputs of every column type', () => {
    const pieces = [
      'eq.',
      'neq.',
      'gt.',
      'lte.',
      'like.',
      'ilike.',
      'in.(',
      'is.',
      'in.',
      'null',
      'not_null',
      'true',
      'false',
      ')',
      '(',
      ',',
      '"',
      '\\',
      ' ',
      '\t',
      '1',
      '-',
      '+',
      '.',
      'e',
      '0x1F',
      '0b2',
      '2024-01-31',
      'T10:00',
      ' 10:00:05.123',
      'Z',
      'z',
      '+01:00',
      '@now',
      'a',
      'x',
      '5',
      '*',
      '%',
    ];
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const disagreements: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      const type = TYPES[i % TYPES.length]!;
      let raw = pieces[random(8)]!;
      const length = random(8);
      for (let j = 0; j < length; j++) raw += pieces[random(pieces.length)];
      if (parses(type, raw) !== matches(type, raw))
        disagreements.push(
          `${type} ${JSON.stringify(raw)}: parser ${parses(type, raw)}, pattern ${matches(type, raw)}`,
        );
    }
    assert.deepEqual(disagreements.slice(0, 20), []);
  });
});
