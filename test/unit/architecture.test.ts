import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';

/** One forbidden rule of .dependency-cruiser.cjs, as far as these tests read it. */
interface ForbiddenRule {
  readonly name: string;
  readonly to: { readonly dependencyTypesNot?: readonly string[] };
}

describe('architecture', () => {
  it('no rule lets type-only imports point upward', () => {
    const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as { forbidden: ForbiddenRule[] };
    const exempting = config.forbidden
      .filter((rule) => rule.to.dependencyTypesNot !== undefined)
      .map((rule) => rule.name);
    assert.deepEqual(exempting, []);
  });

  it('imports point one way (see .dependency-cruiser.cjs and docs/architecture.md)', () => {
    const bin = path.join('node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const result = spawnSync(
      process.execPath,
      [
        bin,
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'err',
        'src',
        'dashboard/src',
        'packages/client/src',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  });
});
