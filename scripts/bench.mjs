#!/usr/bin/env node
// `npm run bench [-- flags]`: builds Rowbase (the harness runs dist/, as production does),
// then runs the harness in bench/ (TypeScript through tsx). `--help` lists the flags.
// Benchmarks are never part of `npm test`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (!args.includes('--help')) {
  const build = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'inherit' },
  );
  if (build.status !== 0) {
    process.stderr.write('bench: the build failed; fix it before benchmarking.\n');
    process.exit(build.status ?? 1);
  }
}

const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'main.ts'), ...args], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
