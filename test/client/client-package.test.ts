/**
 * @rowbase/client as a package: it builds with its own tsconfig (browser libs, no Node types)
 * to ESM plus declarations, has no runtime dependencies, and its declarations make wrong
 * column names and value types compile errors (packages/client/type-tests/). No server, so
 * no engine to vary: @engine sqlite
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';

const root = path.resolve('packages/client');
const tsc = path.resolve('node_modules/typescript/bin/tsc');
let out: string;

function compile(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [tsc, ...args], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

before(() => {
  out = mkdtempSync(path.join(tmpdir(), 'rowbase-client-build-'));
  const build = compile(['-p', path.join(root, 'tsconfig.json'), '--outDir', path.join(out, 'dist')]);
  assert.equal(build.status, 0, `the package does not build:\n${build.output}`);
});
after(() => rmSync(out, { recursive: true, force: true }));

describe('@rowbase/client package', () => {
  it('package.json: ESM, exports dist/index.js with its .d.ts, no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.equal(manifest.name, '@rowbase/client');
    assert.equal(manifest.type, 'module');
    assert.deepEqual(manifest.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      assert.deepEqual(manifest[field] ?? {}, {}, `${field} must be empty`);
    }
  });

  it('the sources import only each other (no package, no Node built-in)', () => {
    for (const file of readdirSync(path.join(root, 'src'))) {
      const text = readFileSync(path.join(root, 'src', file), 'utf8');
      for (const [, specifier] of text.matchAll(/from\s+'([^']+)'/g)) {
        assert.match(specifier!, /^\.\/[a-z-]+\.js$/, `${file} imports ${specifier}`);
      }
    }
  });

  it('the build is ESM with declarations, and its entry loads', async () => {
    const files = readdirSync(path.join(out, 'dist'));
    assert.ok(files.includes('index.js') && files.includes('index.d.ts'), files.join(', '));
    // The temporary folder has no package.json saying "type": "module"; the .js files are ESM all the same.
    writeFileSync(path.join(out, 'package.json'), '{"type": "module"}');
    const sdk = await import(pathToFileURL(path.join(out, 'dist', 'index.js')).href);
    assert.deepEqual(Object.keys(sdk).sort(), [
      'AuthClient',
      'EventStreamParser',
      'RealtimeClient',
      'RowbaseError',
      'TableClient',
      'createClient',
      'isRowbaseError',
      'localStorageStore',
      'memoryStore',
      'readEventStream',
      'sendJson',
    ]);
  });

  it('type-level: wrong columns and value types do not compile, right ones do (tsc --noEmit on type-tests/)', () => {
    const fixture = path.join(root, 'type-tests', 'typed-usage.ts');
    const expected = readFileSync(fixture, 'utf8').match(/@ts-expect-error/g)?.length ?? 0;
    assert.ok(expected >= 12, `the fixture lost its negative cases (${expected})`);
    const config = path.join(out, 'tsconfig.type-tests.json');
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ES2022',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          paths: { '@rowbase/client': [path.join(out, 'dist', 'index.d.ts')] },
        },
        files: [fixture],
      }),
    );
    const check = compile(['-p', config]);
    assert.equal(
      check.output.trim(),
      '',
      'tsc reports nothing: every @ts-expect-error line is an error, every other line compiles',
    );
    assert.equal(check.status, 0);
  });
});
