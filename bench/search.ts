/**
 * The full-text search scenario (issue 25, contract §18): `search=` on a table of 1,000,000
 * rows (the size of `events`), p50 under 50 ms and p99 under 200 ms on each engine.
 *
 * The table is declared through the schema API like the others (`search: ["title", "body"]`),
 * but its rows are generated inside the database in one statement (a recursive CTE on SQLite,
 * generate_series on PostgreSQL; the engines' triggers or generated column index them as any
 * write would): a million rows through the bulk API would double the seeding time. Words are
 * `w0`..`w4999`, 11 per row from fixed formulas, so each word is in about 2,200 rows per million
 * and every query below matches (its words are taken from one known row).
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { LoadRequest } from './load-spec.js';
import type { BenchTable } from './schema.js';

/** Distinct words of the generated text. */
const VOCABULARY = 5_000;
const STAMP = '2026-01-01T00:00:00.000Z';

/** The searched table; the publishable key may list it. */
export const DOCS: BenchTable = {
  name: 'docs',
  definition: {
    columns: [
      { name: 'title', type: 'text' },
      { name: 'body', type: 'text' },
    ],
    search: ['title', 'body'],
    rules: { list: '', view: '', create: null, update: null, delete: null },
  },
  columns: [
    { name: 'id', type: 'text' },
    { name: 'created_at', type: 'timestamp' },
    { name: 'updated_at', type: 'timestamp' },
    { name: 'title', type: 'text' },
    { name: 'body', type: 'text' },
  ],
};

/** The i-th word of row n: (n × a + b) mod VOCABULARY, the same formula in JS and in both SQL dialects. */
const TITLE: readonly (readonly [number, number])[] = [
  [7_919, 0],
  [104_729, 13],
  [31, 7],
];
const BODY: readonly (readonly [number, number])[] = [
  [3, 1],
  [17, 5],
  [101, 11],
  [1_009, 23],
  [7_877, 29],
  [65_537, 31],
  [12_289, 37],
  [257, 41],
];
const word = (n: number, [a, b]: readonly [number, number]) => `w${(n * a + b) % VOCABULARY}`;
const sqlWords = (terms: readonly (readonly [number, number])[], n: string) =>
  terms.map(([a, b]) => `'w' || ((${n} * ${a} + ${b}) % ${VOCABULARY})`).join(` || ' ' || `);

/** Queries the scenario sends, built from the words of known rows: one word, two words, a phrase, an exclusion, or. */
export function searchQueries(rows: number): string[] {
  const queries: string[] = [];
  for (let i = 1; i <= 20; i++) {
    const n = Math.floor((rows * i) / 23);
    queries.push(word(n, TITLE[0]!));
    queries.push(`${word(n, TITLE[1]!)} ${word(n, BODY[2]!)}`);
    queries.push(`"${word(n, TITLE[0]!)} ${word(n, TITLE[1]!)}"`);
    queries.push(`${word(n, BODY[0]!)} -${word(n + 1, BODY[1]!)}`);
    queries.push(`${word(n, BODY[3]!)} or ${word(n, BODY[4]!)}`);
  }
  return queries;
}

/** The scenario's requests: page 1 (20 rows, most relevant first) of each query, with its total. */
export function searchRequests(base: string, headers: Record<string, string>, rows: number): LoadRequest[] {
  return searchQueries(rows).map((query) => ({
    method: 'GET',
    path: `${base}?search=${encodeURIComponent(query)}&limit=20`,
    headers,
  }));
}

/** Generates `rows` rows of `docs` in the project's SQLite file (the server that owns it must be stopped). */
export function seedSearchSqlite(projectFile: string, rows: number): void {
  const db = new Database(projectFile);
  try {
    db.prepare(
      `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n + 1 < ?)
       INSERT INTO "docs" ("id", "created_at", "updated_at", "title", "body")
       SELECT printf('d%07d', n), ?, ?, ${sqlWords(TITLE, 'n')}, ${sqlWords(BODY, 'n')} FROM s`,
    ).run(rows, STAMP, STAMP);
  } finally {
    db.close();
  }
}

/** Generates `rows` rows of `docs` in the project's PostgreSQL schema. */
export async function seedSearchPostgres(client: pg.Client, schema: string, rows: number): Promise<void> {
  await client.query(
    `INSERT INTO "${schema}"."docs" ("id", "created_at", "updated_at", "title", "body")
     SELECT 'd' || lpad(n::text, 7, '0'), $2::timestamptz, $2::timestamptz,
            ${sqlWords(TITLE, 'n::bigint')}, ${sqlWords(BODY, 'n::bigint')}
     FROM generate_series(0, $1::bigint - 1) AS n`,
    [rows, STAMP],
  );
  // Steady state, as autovacuum leaves it: the GIN index's pending list merged (a million rows
  // written at once would otherwise sit in it, and every search would scan it).
  await client.query(`VACUUM (ANALYZE) "${schema}"."docs"`);
}
