#!/usr/bin/env node
// `npm start`'s prestart: rebuilds only what is older than its sources. The server's TypeScript
// (src/ → dist/) is compiled incrementally (tsc --incremental, build info in dist/), the
// dashboard (dashboard/ → dist/dashboard/) with its own build; each is skipped when its output
// is newer than every one of its source files, so a start with a current dist/ costs no build.
// A fresh clone (no dist/) builds both. `npm run build` still rebuilds everything.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const at = (...parts) => path.join(root, ...parts);

/** The newest modification time (ms) among the files under `entries` (files or folders), or 0. */
function newestSource(entries) {
  let newest = 0;
  const visit = (file) => {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return; // an optional entry that does not exist
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(file)) if (name !== 'node_modules') visit(path.join(file, name));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  entries.forEach(visit);
  return newest;
}

/** The time (ms) a target was last built: its newest marker, or 0 when none exists. */
function builtAt(markers) {
  return Math.max(0, ...markers.filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const targets = [
  {
    name: 'server',
    sources: [at('src'), at('tsconfig.json'), at('tsconfig.build.json')],
    // dist/main.js is rewritten by a full build; the stamp by every build of this script
    // (an incremental build rewrites only the files that changed).
    markers: [at('dist', 'main.js'), at('dist', '.server-built')],
    stamp: at('dist', '.server-built'),
    build: () =>
      run(process.execPath, [
        at('node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        'tsconfig.build.json',
        '--incremental',
        '--tsBuildInfoFile',
        'dist/.tsbuildinfo',
      ]),
  },
  {
    name: 'dashboard',
    sources: [at('dashboard')],
    markers: [at('dist', 'dashboard', 'index.html')],
    stamp: undefined,
    build: () => run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build:dashboard', '--silent']),
  },
];

for (const target of targets) {
  if (!existsSync(target.sources[0])) continue; // e.g. a checkout without the dashboard
  const built = builtAt(target.markers);
  if (built > 0 && built >= newestSource(target.sources)) continue;
  const started = Date.now();
  target.build();
  if (target.stamp) {
    // Dated when the build began: a source saved while it ran is newer, so the next start rebuilds.
    writeFileSync(target.stamp, `${new Date(started).toISOString()}\n`);
    utimesSync(target.stamp, started / 1000, started / 1000);
  }
  console.log(`built ${target.name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
