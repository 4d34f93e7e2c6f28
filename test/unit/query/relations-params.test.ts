/**
 * The pure parts of issue 14 (contract §13): cursors (signed, bound to a scope), keyset
 * conditions (nulls smallest), expand trees (shared prefixes expanded once) and aggregate selects.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAggregateSelect } from '../../../src/query/aggregates.js';
import { cursorScope, decodeCursor, encodeCursor, keysetCondition } from '../../../src/query/cursor.js';
import { parseExpand, type ReferenceMap } from '../../../src/query/expand.js';
import type { OrderTerm, ValueType } from '../../../src/query/sql-tree.js';

const ORDER: OrderTerm[] = [
  { column: 'title', descending: false },
  { column: 'id', descending: false },
];
const TYPES = new Map<string, ValueType>([
  ['title', 'text'],
  ['id', 'text'],
  ['n', 'integer'],
]);

describe('cursors', () => {
  const scope = cursorScope('tasks', ORDER, [['filter', 'n > 1']]);
  const cursor = encodeCursor('key', scope, ORDER, { title: 'b', id: 'x' });

  it('round-trips the key values', () => {
    assert.deepEqual(decodeCursor('key', scope, ORDER, cursor), ['b', 'x']);
  });

  const refused: [string, () => unknown][] = [
    ['another key (project)', () => decodeCursor('other', scope, ORDER, cursor)],
    ['another filter', () => decodeCursor('key', cursorScope('tasks', ORDER, [['filter', 'n > 2']]), ORDER, cursor)],
    ['another table', () => decodeCursor('key', cursorScope('notes', ORDER, [['filter', 'n > 1']]), ORDER, cursor)],
    ['no dot', () => decodeCursor('key', scope, ORDER, 'abc')],
    ['too long', () => decodeCursor('key', scope, ORDER, `${'a'.repeat(5000)}.b`)],
  ];
  for (const [name, call] of refused) {
    it(`refuses ${name} with VALIDATION_FILTER`, () => assert.throws(call, { code: 'VALIDATION_FILTER' }));
  }

  it('the scope does not depend on the order of shorthand filters', () => {
    assert.equal(
      cursorScope('t', ORDER, [
        ['a', 'eq.1'],
        ['b', 'eq.2'],
      ]),
      cursorScope('t', ORDER, [
        ['b', 'eq.2'],
        ['a', 'eq.1'],
      ]),
    );
  });
});

describe('keysetCondition', () => {
  it('ascending after a value: a bound on the first key (index start), then greater, or equal and a later id', () => {
    const condition = keysetCondition(ORDER, ['b', 'x'], TYPES) as { kind: string; items: unknown[] };
    assert.equal(condition.kind, 'and');
    assert.deepEqual(condition.items[0], {
      kind: 'compare',
      op: '>=',
      left: { kind: 'column', name: 'title' },
      right: { kind: 'value', value: 'b', type: 'text' },
    });
    assert.deepEqual(condition.items[1], {
      kind: 'or',
      items: [
        {
          kind: 'compare',
          op: '>',
          left: { kind: 'column', name: 'title' },
          right: { kind: 'value', value: 'b', type: 'text' },
        },
        {
          kind: 'and',
          items: [
            {
              kind: 'compare',
              op: '=',
              left: { kind: 'column', name: 'title' },
              right: { kind: 'value', value: 'b', type: 'text' },
            },
            {
              kind: 'compare',
              op: '>',
              left: { kind: 'column', name: 'id' },
              right: { kind: 'value', value: 'x', type: 'text' },
            },
          ],
        },
      ],
    });
  });

  it('descending on a not-null column: plain < without null cases', () => {
    const order: OrderTerm[] = [
      { column: 'created_at', descending: true },
      { column: 'id', descending: true },
    ];
    const condition = keysetCondition(
      order,
      ['2026-01-01T00:00:00.000Z', 'x'],
      TYPES,
      new Set(['created_at', 'id']),
    ) as unknown;
    assert.doesNotMatch(JSON.stringify(condition), /is-null/);
  });

  it('ascending after null: every non-null value, or null and a later id', () => {
    const condition = keysetCondition(ORDER, [null, 'x'], TYPES) as unknown as { items: unknown[] };
    assert.deepEqual(condition.items[0], { kind: 'is-null', expr: { kind: 'column', name: 'title' }, negated: true });
  });

  it('descending after null: nothing but later ids among the nulls (nulls sort last)', () => {
    const order: OrderTerm[] = [
      { column: 'n', descending: true },
      { column: 'id', descending: true },
    ];
    const condition = keysetCondition(order, [null, 'x'], TYPES) as { kind: string; items: { kind: string }[] };
    assert.equal(condition.kind, 'and');
  });
});

describe('parseExpand', () => {
  const references: ReferenceMap = new Map([
    ['posts', new Map([['author', 'users']])],
    ['users', new Map([['team', 'teams']])],
    ['teams', new Map([['org', 'orgs']])],
    ['orgs', new Map()],
    ['comments', new Map([['post', 'posts']])],
  ]);

  it('shared prefixes become one node; reverse segments name their table and column', () => {
    const tree = parseExpand('author,author.team,comments(post)', 'posts', references);
    assert.deepEqual(
      tree.map((n) => [n.key, n.kind, n.table, n.children.map((c) => c.key)]),
      [
        ['author', 'forward', 'users', ['team']],
        ['comments(post)', 'reverse', 'comments', []],
      ],
    );
  });

  const refused: [string, string, RegExp][] = [
    ['unknown name', 'writer', /Expand one of: author, comments\(post\)/],
    ['4 levels', 'author.team.org.x', /at most 3/],
    ['reverse column not referencing the table', 'comments(body)', /comments\(post\)/],
    ['malformed', 'author(', /author/],
  ];
  for (const [name, text, pattern] of refused) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => parseExpand(text, 'posts', references),
        (error: { code: string; message: string; suggestion: string }) => {
          assert.equal(error.code, 'VALIDATION_FILTER');
          assert.match(`${error.message} ${error.suggestion}`, pattern);
          return true;
        },
      );
    });
  }
});

describe('parseAggregateSelect', () => {
  it('default keys, aliases and grouping columns', () => {
    const parsed = parseAggregateSelect(['title', 'count()', 'total:sum(n)', 'avg(n)', 'min(title)'], TYPES);
    assert.deepEqual(parsed.groupBy, ['title']);
    assert.deepEqual(
      parsed.outputs.map((o) => [o.key, o.fn, o.column ?? null, o.type]),
      [
        ['count', 'count', null, 'integer'],
        ['total', 'sum', 'n', 'number'],
        ['avg_n', 'avg', 'n', 'number'],
        ['min_title', 'min', 'title', 'text'],
      ],
    );
  });
});
