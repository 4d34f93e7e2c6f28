import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pascalCase, tsCommentName, tsPropertyKey, typeNames } from '../../../src/openapi/identifiers.js';

describe('openapi identifiers', () => {
  const cases: [string, string][] = [
    ['tasks', 'Tasks'],
    ['user_profiles', 'UserProfiles'],
    ['a1_b2', 'A1B2'],
    ['x__y', 'XY'],
  ];
  for (const [name, expected] of cases)
    it(`pascalCase(${name}) → ${expected}`, () => assert.equal(pascalCase(name), expected));

  it('two tables with the same PascalCase name get distinct, stable type names', () => {
    const names = typeNames(['a__b', 'a_b', 'tasks']);
    assert.deepEqual([...names.entries()].sort(), [
      ['a__b', 'AB'],
      ['a_b', 'AB2'],
      ['tasks', 'Tasks'],
    ]);
    assert.deepEqual(typeNames(['tasks', 'a_b', 'a__b']), names, 'the order they are given in does not matter');
  });

  it('property keys are bare identifiers or quoted strings', () => {
    assert.equal(tsPropertyKey('title'), 'title');
    assert.equal(tsPropertyKey('my-col'), '"my-col"');
    assert.equal(tsPropertyKey('1st'), '"1st"');
  });

  it('a name in a comment can neither end the comment nor the line', () => {
    const quoted = tsCommentName('x */ alert(1) /*\u2028y');
    assert.ok(!quoted.includes('*/'));
    assert.ok(!quoted.includes('\u2028'));
  });
});
