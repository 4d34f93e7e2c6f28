import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

describe('architecture', () => {
  it('imports point one way (see .dependency-cruiser.cjs and STYLE.md)', () => {
    const bin = path.join('node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const result = spawnSync(process.execPath, [bin, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src', 'dashboard/src', 'packages/client/src'], { encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  });
});
