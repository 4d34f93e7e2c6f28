/**
 * Preloaded into a Rowbase server (node --import) by `npm run bench -- --statement-times`:
 * times every better-sqlite3 statement the server runs (all, get, run), by SQL text, and on
 * SIGUSR1 writes the totals since the last SIGUSR1 to the file BENCH_STATEMENT_TIMES names.
 * Measurement only: nothing in src/ imports it, and no build contains it.
 */
import { renameSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const out = process.env.BENCH_STATEMENT_TIMES;
if (!out) throw new Error('statement-timer: BENCH_STATEMENT_TIMES names no file');

// Statements share one native prototype; patching it times every statement of every connection.
const probe = new Database(':memory:');
const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();

/** SQL text → { calls, ns, rows }. */
let totals = new Map();

for (const method of ['all', 'get', 'run']) {
  const original = prototype[method];
  prototype[method] = function timed(...args) {
    const started = process.hrtime.bigint();
    const result = original.apply(this, args);
    const ns = Number(process.hrtime.bigint() - started);
    let entry = totals.get(this.source);
    if (!entry) {
      entry = { calls: 0, ns: 0, rows: 0 };
      totals.set(this.source, entry);
    }
    entry.calls++;
    entry.ns += ns;
    entry.rows += method === 'all' ? result.length : method === 'get' ? (result === undefined ? 0 : 1) : 0;
    return result;
  };
}

process.on('SIGUSR1', () => {
  const window = [...totals].map(([sql, entry]) => ({ sql, ...entry }));
  totals = new Map();
  // Written whole, then renamed: the harness never reads half a file.
  writeFileSync(`${out}.part`, JSON.stringify(window));
  renameSync(`${out}.part`, out);
});
