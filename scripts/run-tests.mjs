#!/usr/bin/env node
// Runs every test file under test/ with Node's test runner (TypeScript through tsx).
// Node 20's runner takes no globs, so the files are listed here. The scenario and e2e files then
// run again on PostgreSQL (TEST_DATABASE_URL) when it is reachable; see docs/engines.md.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'helpers' ? [] : find(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

function runNodeTests(files, env) {
  if (files.length === 0) return 0;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { stdio: 'inherit', env: { ...process.env, ...env } },
  );
  return result.status ?? 1;
}

const only = process.argv.slice(2);
// A folder names every test file below it (`node scripts/run-tests.mjs test/unit/docs`).
const files = (
  only.length > 0 ? only.flatMap((arg) => (statSync(arg).isDirectory() ? find(arg) : [arg])) : find('test')
).sort();

// The whole suite starts with the type checker, then the linter, over server, tests, bench, SDK and dashboard:
// a type error in a test file fails the run (tsx strips types without checking them).
if (only.length === 0) {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  for (const project of ['tsconfig.json', 'dashboard/tsconfig.json']) {
    const checked = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit'], { stdio: 'inherit' });
    if (checked.status !== 0) {
      console.log(`\nTypecheck of ${project} failed: fix the errors above (npm run typecheck).`);
      process.exit(1);
    }
  }
  console.log('Typecheck passed (tsconfig.json, dashboard/tsconfig.json).');
  // Then Biome (lint and format check, biome.json), so style drift fails the run as a type error does.
  const biome = path.join('node_modules', '@biomejs', 'biome', 'bin', 'biome');
  const linted = spawnSync(process.execPath, [biome, 'check'], { stdio: 'inherit' });
  if (linted.status !== 0) {
    console.log(
      '\nLint failed (biome check): run `npm run format` for formatting, fix the rest by hand (npm run lint).',
    );
    process.exit(1);
  }
  console.log('Lint passed (biome check).');
}
// ROWBASE_TEST_ENGINE=sqlite|postgres runs one pass only; unset runs SQLite, then PostgreSQL.
const engine = process.env.ROWBASE_TEST_ENGINE;
// A file marked `@engine sqlite` or `@engine postgres` in its header runs in that pass only.
const marked = (file, name) => new RegExp(`@engine ${name}\\b`).test(readFileSync(file, 'utf8').slice(0, 1000));
let status =
  engine === 'postgres'
    ? 0
    : runNodeTests(
        files.filter((file) => !marked(file, 'postgres')),
        { ROWBASE_TEST_ENGINE: 'sqlite' },
      );

// The HTTP suite (scenario and e2e files) runs a second time on PostgreSQL.
const httpFiles = files.filter(
  (file) => /(^|[\\/])test[\\/](scenarios|e2e|client|browser)[\\/]/.test(file) && !marked(file, 'sqlite'),
);
if (engine !== 'sqlite' && httpFiles.length > 0) {
  const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const maintenanceUrl = Object.assign(new URL(url), { pathname: '/postgres' }).toString();
  const onServer = async (use) => {
    const client = new pg.Client({ connectionString: maintenanceUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  const reachable = await onServer((client) => client.query('SELECT 1')).then(
    () => true,
    () => false,
  );
  if (!reachable) {
    const where = new URL(url).host;
    console.log(
      `\n${'='.repeat(72)}\nSKIPPED: PostgreSQL suite (no server ` +
        `at ${where}; set TEST_DATABASE_URL)\n${'='.repeat(72)}`,
    );
    if (process.env.ROWBASE_REQUIRE_POSTGRES === '1') {
      console.log('ROWBASE_REQUIRE_POSTGRES=1: the PostgreSQL suite is mandatory here; failing.');
      status ||= 1;
    }
  } else {
    const prefix = `rowbase_t_${randomBytes(4).toString('hex')}_`;
    console.log(`\n== PostgreSQL pass: ${httpFiles.length} files on ${new URL(url).host} (databases ${prefix}*) ==`);
    status =
      runNodeTests(httpFiles, {
        ROWBASE_TEST_ENGINE: 'postgres',
        TEST_DATABASE_URL: url,
        ROWBASE_TEST_DB_PREFIX: prefix,
      }) || status;
    // Servers that reuse a data folder keep their database; drop whatever this run left behind.
    await onServer(async (client) => {
      const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  }
}
process.exit(status);
