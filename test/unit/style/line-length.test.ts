import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The longest line a source file may hold, in characters (biome.json's lineWidth). */
const MAX_LINE = 120;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Every tracked source file (TypeScript and JavaScript, config files included), relative to the
 * root. Biome formats most of them but cannot break a string, a comment or a test name, and it
 * skips files outside biome.json's includes (bench/baseline, .dependency-cruiser.cjs).
 */
function trackedSourceFiles(): string[] {
  const result = spawnSync('git', ['ls-files', '-z', '--', '*.ts', '*.tsx', '*.mjs', '*.js', '*.cjs'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `git ls-files failed: ${result.error?.message ?? result.stderr}`);
  return result.stdout.split('\0').filter((file) => file !== '');
}

/** `file:line (length)` for each line of `file` longer than MAX_LINE, counted in code points. */
function longLines(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return text.split(/\r?\n/).flatMap((line, index) => {
    const length = [...line].length;
    return length > MAX_LINE ? [`${file}:${index + 1} (${length})`] : [];
  });
}

describe('line length', () => {
  it(`every tracked source line is at most ${MAX_LINE} characters`, () => {
    const files = trackedSourceFiles();
    assert.ok(files.includes('src/main.ts'), 'git ls-files lists the source files');
    const found = files.flatMap(longLines);
    assert.deepEqual(found, [], `lines over ${MAX_LINE} characters (wrap them):\n${found.join('\n')}`);
  });
});
