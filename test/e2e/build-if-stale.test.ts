/**
 * `npm start`'s prestart (scripts/build-if-stale.mjs) as a real process with the real tsc, over
 * a small TypeScript project of its own in a temporary folder: a missing dist/ is built, a
 * current one is left alone, and an edited source rebuilds only what changed.
 * @engine sqlite — no storage is involved; the PostgreSQL pass would repeat it unchanged.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

describe('prestart: build only what is stale', () => {
  let root: string;
  const file = (...parts: string[]) => path.join(root, ...parts);
  const prestart = (): string =>
    execFileSync(process.execPath, [file('scripts', 'build-if-stale.mjs')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
  const mtime = (...parts: string[]) => statSync(file(...parts)).mtimeMs;
  /** Writes a source file dated `secondsAgo` in the past (so later builds are clearly newer). */
  const writeSource = (name: string, text: string, secondsAgo = 60) => {
    writeFileSync(file('src', name), text);
    const when = Date.now() / 1000 - secondsAgo;
    utimesSync(file('src', name), when, when);
  };

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'rowbase-prestart-'));
    mkdirSync(file('scripts'));
    mkdirSync(file('src'));
    copyFileSync(path.resolve('scripts', 'build-if-stale.mjs'), file('scripts', 'build-if-stale.mjs'));
    symlinkSync(path.resolve('node_modules'), file('node_modules'), 'dir');
    writeFileSync(
      file('tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: [],
          skipLibCheck: true,
          outDir: 'dist',
          rootDir: '.',
        },
        include: ['src'],
      }),
    );
    writeFileSync(
      file('tsconfig.build.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { rootDir: 'src', outDir: 'dist' },
        include: ['src'],
      }),
    );
    writeSource(
      'main.ts',
      "import { greeting } from './greeting.js';\nimport { unchanged } " +
        "from './unchanged.js';\nconsole.log(greeting, unchanged);\n",
    );
    writeSource('greeting.ts', "export const greeting: string = 'hello';\n");
    writeSource('unchanged.ts', 'export const unchanged = 1;\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('no dist/ (a fresh clone): builds the server, with its incremental build info', () => {
    assert.match(prestart(), /built server/);
    assert.match(readFileSync(file('dist', 'main.js'), 'utf8'), /greeting/);
    assert.ok(statSync(file('dist', '.tsbuildinfo')).size > 0);
  });

  it('a current dist/: no build at all, outputs untouched', () => {
    const before = mtime('dist', 'main.js');
    assert.equal(prestart(), '');
    assert.equal(mtime('dist', 'main.js'), before);
  });

  it('an edited source: rebuilt incrementally (output changes, an unchanged file is kept), then current', () => {
    const unchangedBefore = mtime('dist', 'unchanged.js');
    writeSource('greeting.ts', "export const greeting: string = 'bonjour';\n", 0);
    assert.match(prestart(), /built server/);
    assert.match(readFileSync(file('dist', 'greeting.js'), 'utf8'), /bonjour/);
    assert.equal(mtime('dist', 'unchanged.js'), unchangedBefore, 'tsc --incremental left the unchanged output alone');
    assert.equal(prestart(), '');
  });

  it('a type error fails the start (exit code of tsc), as before', () => {
    writeSource('greeting.ts', 'export const greeting: string = 42;\n', 0);
    assert.throws(
      () => prestart(),
      (error: { status?: number }) => error.status !== 0,
    );
    writeSource('greeting.ts', "export const greeting: string = 'hello again';\n", 0);
    assert.match(prestart(), /built server/);
  });
});
