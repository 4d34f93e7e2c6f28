/**
 * Full-text search gives the same rows on SQLite and PostgreSQL (contract §18): random queries
 * (words, phrases, exclusions, or, stray syntax) over random corpora (case, accents, Greek,
 * Cyrillic, CJK, punctuation between words, nulls, two columns) must select the same ids on
 * both engines, ranked or not, and the same count; on each engine, a ranked page is the slice of
 * the whole ranked order. Skipped (visibly) without PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { isAppError } from '../../src/errors/app-error.js';
import { parseSearch, type SearchQuery } from '../../src/query/search-parser.js';
import { sql, type ColumnRef, type OrderTerm } from '../../src/query/sql-tree.js';
import type { ProjectDatabase, TableChange } from '../../src/store/types.js';
import { contractEngines, tableOf, type EngineFixture } from '../helpers/storage-engines.js';

const STAMP = '2026-01-31T09:30:00.000Z';
const COLUMNS: ColumnRef[] = [
  { name: 'id', type: 'text' },
  { name: 'created_at', type: 'timestamp' },
  { name: 'updated_at', type: 'timestamp' },
  { name: 'title', type: 'text' },
  { name: 'body', type: 'text' },
];
const TABLE = tableOf('docs', [{ name: 'title' }, { name: 'body' }], { search: ['title', 'body'] });
const RANKED: OrderTerm[] = [
  { column: '_rb_rank', descending: true, expr: { kind: 'search-rank' }, type: 'number' },
  { column: 'id', descending: false },
];

const WORDS = [
  'tea',
  'Tea',
  'TEA',
  'téa',
  'green',
  'GRÉEN',
  'café',
  'cafe',
  'Café',
  'über',
  'uber',
  'naïve',
  'naive',
  'straße',
  'œuvre',
  'ø',
  'σοφία',
  'ΣΟΦΊΑ',
  'жук',
  'Жук',
  'ёж',
  '日本',
  'a1',
  '1a',
  '42',
  'İstanbul',
  'ǅ',
  'or',
  'OR',
  'near',
  'and',
  'not',
  // Decomposed accents (e + U+0301; Cyrillic е + U+0308), precomposed Latin, a ligature.
  'e\u0301te',
  '\u0435\u0308\u0436',
  'Ǻ',
  'ﬁ',
  // A mark FTS5 treats as a separator; Greek accents decomposed and precomposed.
  'x\u0305y',
  '\u03b1\u0301',
  'ά',
];
const SEPARATORS = [' ', '  ', ', ', '-', '.', '!', '\n', ' — ', '/', "'", '_', '²', '…'];

const word = fc.constantFrom(...WORDS);
const text = fc
  .array(fc.tuple(word, fc.constantFrom(...SEPARATORS)), { maxLength: 12 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));
const corpus = fc.array(fc.tuple(fc.option(text, { nil: null }), fc.option(text, { nil: null })), {
  minLength: 1,
  maxLength: 25,
});
const term = fc.oneof(
  word,
  word.map((w) => `-${w}`),
  fc.tuple(word, fc.constantFrom(...SEPARATORS), word).map(([a, s, b]) => `"${a}${s}${b}"`),
  fc.tuple(word, word).map(([a, b]) => `-"${a} ${b}"`),
  fc.constantFrom('or', '*', 'NEAR(', ':', '^', '&', '|', '"', '-'),
  fc.tuple(word, fc.constantFrom('*', ':x', '^', '&x', '|x', '(', ')')).map(([a, b]) => a + b),
);
const query = fc.array(term, { minLength: 1, maxLength: 6 }).map((terms) => terms.join(' '));

const engines = await contractEngines();

describe('full-text search: the same ids on SQLite and PostgreSQL', { skip: engines.length < 2 }, () => {
  const fixtures: EngineFixture[] = [];
  const dbs: ProjectDatabase[] = [];

  before(async () => {
    for (const factory of engines) {
      const fixture = await factory.create();
      fixtures.push(fixture);
      await fixture.engine.createProject('search-properties');
      const db = await fixture.engine.project('search-properties');
      const change: TableChange = { before: null, after: TABLE, resetColumns: [] };
      await db.changeSchema(async (tx) => tx.changeTable(change));
      dbs.push(db);
    }
  });
  after(async () => {
    for (const fixture of fixtures) await fixture.dispose();
  });

  const ids = async (db: ProjectDatabase, search: SearchQuery, orderBy?: OrderTerm[]) =>
    (
      await db.all({
        kind: 'select',
        table: 'docs',
        columns: [COLUMNS[0]!],
        search: { query: search },
        orderBy: orderBy ?? [{ column: 'id', descending: false }],
      })
    )
      .map((row) => row.id as string)
      .sort();

  /**
   * Pages of the ranked order (the engines may leave out every match ranked below the page's
   * end, and count the total in the page's statement) are slices of the whole ranked order,
   * ties included, and carry the number of matches.
   */
  const assertPages = async (db: ProjectDatabase, search: SearchQuery, context: string) => {
    const select = { kind: 'select', table: 'docs', columns: [COLUMNS[0]!], search: { query: search } } as const;
    const whole = (await db.all({ ...select, orderBy: RANKED })).map((row) => row.id as string);
    for (const [limit, offset] of [
      [1, 0],
      [2, 1],
      [3, 2],
    ] as const) {
      const page = await db.all({ ...select, orderBy: RANKED, limit, offset, totalAs: '_rb_total' });
      const ids = page.map((row) => row.id as string);
      assert.deepEqual(ids, whole.slice(offset, offset + limit), `page ${limit} at ${offset}, ${context}`);
      for (const row of page) assert.equal(row._rb_total, whole.length, `total, ${context}`);
    }
  };

  it('random queries over random corpora', async () => {
    await fc.assert(
      fc.asyncProperty(corpus, fc.array(query, { minLength: 4, maxLength: 8 }), async (rows, queries) => {
        for (const db of dbs) {
          await db.run({ kind: 'delete', table: 'docs', where: sql.bool(true) });
          await db.run({
            kind: 'insert',
            table: 'docs',
            columns: COLUMNS,
            rows: rows.map(([title, body], i) => [`r${String(i).padStart(2, '0')}`, STAMP, STAMP, title, body]),
          });
        }
        for (const text of queries) {
          let parsed: SearchQuery;
          try {
            parsed = parseSearch(text);
          } catch (error) {
            assert.ok(isAppError(error) && error.code === 'VALIDATION_FILTER', String(error));
            continue;
          }
          const [sqlite, postgres] = [await ids(dbs[0]!, parsed), await ids(dbs[1]!, parsed)];
          const context = `query ${JSON.stringify(text)} over ${JSON.stringify(rows)}`;
          assert.deepEqual(postgres, sqlite, context);
          assert.deepEqual(await ids(dbs[0]!, parsed, RANKED), sqlite, `ranked, SQLite: ${context}`);
          assert.deepEqual(await ids(dbs[1]!, parsed, RANKED), sqlite, `ranked, PostgreSQL: ${context}`);
          for (const db of dbs)
            assert.equal(
              await db.count({ kind: 'count', table: 'docs', search: { query: parsed } }),
              sqlite.length,
              context,
            );
          for (const [index, db] of dbs.entries()) await assertPages(db, parsed, `engine ${index}, ${context}`);
        }
      }),
      { numRuns: 80 },
    );
  });
});
