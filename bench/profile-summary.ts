/**
 * Reads a V8 .cpuprofile (from node --cpu-prof) and summarises where the time went: the
 * functions with the most self time, the functions with the most inclusive time, and a
 * split by area (Rowbase's code, Fastify, Node internals, garbage collection, idle).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** One function's share of the profile. */
export interface HotSpot {
  readonly name: string;
  readonly ms: number;
  readonly percent: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly self: readonly HotSpot[];
  readonly inclusive: readonly HotSpot[];
  readonly areas: readonly HotSpot[];
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) return url.slice(modules + 'node_modules/'.length);
  const dist = url.lastIndexOf('/dist/');
  if (dist !== -1) return url.slice(dist + 1);
  return url.replace(/^node:/, '');
}

function keyOf(frame: CallFrame): string {
  if (!frame.url) return `(${frame.functionName || 'program'})`;
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url)
    return frame.functionName === '(garbage collector)'
      ? 'garbage collection'
      : frame.functionName === '(idle)'
        ? 'idle (waiting for I/O)'
        : 'native / program';
  if (url.includes('/dist/')) return 'Rowbase (dist/), incl. SQLite calls made from it';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return `package ${modules[1]}`;
  return 'Node internals (http, streams, timers)';
}

function top(map: Map<string, number>, total: number, count: number): HotSpot[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, ms: us / 1000, percent: (us / total) * 100 }));
}

/**
 * Summarises a profile file; `count` hot spots per list. `skipMs` leaves out the first
 * milliseconds (start-up and module loading, which would otherwise crowd out the request
 * path). Throws when the file is not a CPU profile.
 */
export function summariseProfile(file: string, count = 25, skipMs = 0): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  let elapsed = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    elapsed += us;
    if (elapsed < skipMs * 1000) continue;
    const leaf = byId.get(profile.samples[i]!)!;
    total += us;
    self.set(keyOf(leaf.callFrame), (self.get(keyOf(leaf.callFrame)) ?? 0) + us);
    const area = areaOf(leaf.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    // Each function counts once per sample, however often it recurses.
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id)!.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = new Map([...inclusive].filter(([key]) => !key.startsWith('(')));
  return {
    totalMs: total / 1000,
    self: top(self, total, count),
    inclusive: top(busy, total, count),
    areas: top(areas, total, 20),
  };
}

/** The summary as plain text tables. */
export function formatProfile(title: string, summary: ProfileSummary): string {
  const rows = (spots: readonly HotSpot[]) =>
    spots.map((s) => `${s.percent.toFixed(1).padStart(6)} %  ${s.ms.toFixed(0).padStart(7)} ms  ${s.name}`);
  return [
    `# ${title}`,
    `${summary.totalMs.toFixed(0)} ms profiled`,
    '',
    '## By area (self time)',
    ...rows(summary.areas),
    '',
    '## Self time (native calls such as SQLite count toward the JS function that made them)',
    ...rows(summary.self),
    '',
    '## Inclusive time',
    ...rows(summary.inclusive),
    '',
  ].join('\n');
}
