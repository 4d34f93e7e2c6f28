/**
 * What logging every touched row costs an update by filter on SQLite (issue 25), without HTTP:
 * better-sqlite3 on a file with Rowbase's pragmas (WAL, synchronous=NORMAL), the bench's
 * `batches` table (20,000 rows, two groups of 10,000, an index on `grp`), one UPDATE of a group
 * per transaction. It prints the CPU per update of each way to do it and its ratio to the plain
 * UPDATE, which is the hand-written baseline of the `update-by-filter` scenario:
 *
 *   node bench/update-by-filter-floor.mjs [--rounds 20]
 *
 * - plain: `UPDATE ... WHERE grp = ?` (the baseline; no realtime event logged)
 * - log-rows-tiny: plus one event-log row per touched row whose record is only the id: the
 *   floor of any design that keeps one durable log row per event, as the log is today
 * - rowbase: what Rowbase runs (src/store/sql-compiler.ts compileLogBefore): the count of the
 *   bound, log rows whose record is the row's JSON built in SQL, then the UPDATE
 * - returning: the previous implementation: UPDATE ... RETURNING, JSON.stringify each row in
 *   JavaScript, log rows inserted 500 per statement
 * - one-entry: a single log row per statement holding every record (a design the realtime log
 *   does not have: its readers would expand it)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rowbase-ubf-floor-'));
const db = new Database(path.join(dir, 'data.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE batches (id TEXT PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    grp TEXT NOT NULL, score INTEGER) STRICT;
  CREATE INDEX batches_grp ON batches (grp);
  CREATE TABLE _rb_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,
    table_name TEXT NOT NULL, action TEXT NOT NULL, record TEXT NOT NULL) STRICT;`);
const insert = db.prepare('INSERT INTO batches VALUES (?, ?, ?, ?, ?)');
const stamp = '2026-01-01T00:00:00.000Z';
db.transaction(() => {
  for (let n = 0; n < 20_000; n++) insert.run(`row-${String(n).padStart(11, '0')}`, stamp, stamp, `g${n % 2}`, n);
})();

const record = (updatedAt, score) =>
  `'{"id":' || json_quote(id) || ',"created_at":' || json_quote(created_at) || ',"updated_at":' || ` +
  `json_quote(${updatedAt}) || ',"grp":' || json_quote(grp) || ',"score":' || json_quote(${score}) || '}'`;
const count = db.prepare('SELECT count(*) FROM batches WHERE grp = ?').pluck();
const update = db.prepare('UPDATE batches SET score = ?, updated_at = ? WHERE grp = ?');
const returning = db.prepare(
  'UPDATE batches SET score = ?, updated_at = ? WHERE grp = ? RETURNING id, created_at, updated_at, grp, score',
);
const INTO_LOG = 'INSERT INTO _rb_events (created_at, table_name, action, record)';
const logTiny = db.prepare(`${INTO_LOG} SELECT ?, 'batches', 'update', id FROM batches WHERE grp = ?`);
const logRows = db.prepare(`${INTO_LOG} SELECT ?, 'batches', 'update', ${record('?', '?')} FROM batches WHERE grp = ?`);
const logOne = db.prepare(
  `${INTO_LOG} SELECT ?, 'batches', 'update', '[' || group_concat(${record('?', '?')}, ',') || ']' ` +
    'FROM batches WHERE grp = ?',
);
const logValues = (n) => db.prepare(`${INTO_LOG} VALUES ${Array(n).fill('(?, ?, ?, ?)').join(', ')}`);
const log500 = logValues(500);

const WAYS = {
  plain: (group, score, now) => update.run(score, now, group),
  'log-rows-tiny': (group, score, now) => {
    count.get(group);
    logTiny.run(now, group);
    update.run(score, now, group);
  },
  rowbase: (group, score, now) => {
    count.get(group);
    logRows.run(now, now, score, group);
    update.run(score, now, group);
  },
  returning: (group, score, now) => {
    count.get(group);
    const rows = returning.all(score, now, group);
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const params = chunk.flatMap((row) => [now, 'batches', 'update', JSON.stringify(row)]);
      (chunk.length === 500 ? log500 : logValues(chunk.length)).run(...params);
    }
  },
  'one-entry': (group, score, now) => {
    count.get(group);
    logOne.run(now, now, score, group);
    update.run(score, now, group);
  },
};

const cpu = {};
for (const name of Object.keys(WAYS)) cpu[name] = [];
for (let round = 0; round < rounds; round++) {
  for (const [name, way] of Object.entries(WAYS)) {
    const step = db.transaction((n) => way(`g${n % 2}`, n, new Date().toISOString()));
    step(round); // warm, and the other group next
    const before = process.cpuUsage();
    step(round + 1);
    const used = process.cpuUsage(before);
    cpu[name].push((used.user + used.system) / 1000);
    db.exec('DELETE FROM _rb_events');
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const plain = median(cpu.plain);
console.log(`CPU per update of 10,000 rows, median of ${rounds} rounds (ratio = plain / this):`);
for (const [name, list] of Object.entries(cpu)) {
  const ms = median(list);
  console.log(`  ${name.padEnd(14)} ${ms.toFixed(1).padStart(6)} ms   ${(plain / ms).toFixed(2)} x`);
}
db.close();
fs.rmSync(dir, { recursive: true, force: true });
