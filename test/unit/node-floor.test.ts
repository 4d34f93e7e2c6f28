/**
 * The Node.js floor that package.json and the README promise holds for every installed package:
 * `npm install` on the oldest supported Node prints no engine warnings and nothing needs a newer
 * one (content-disposition@3 and cookie@2 wanted Node 22; see the overrides in package.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import semver from 'semver';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));

it('every package in the lockfile runs on the oldest Node.js that package.json accepts', () => {
  const floor = semver.minVersion(manifest.engines.node)!.version;
  const wanting = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
    .filter(([, entry]) => typeof entry.engines?.node === 'string' && !semver.satisfies(floor, entry.engines.node))
    .map(([name, entry]) => `${name} wants node ${entry.engines!.node}`);
  assert.deepEqual(wanting, [], `Node ${floor} is the floor (package.json engines)`);
});

it('the README names the same floor', () => {
  const floor = semver.minVersion(manifest.engines.node)!;
  assert.match(readFileSync('README.md', 'utf8'), new RegExp(`Node\\.js ${floor.major}\\.${floor.minor} or newer`));
});
