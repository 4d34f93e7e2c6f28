/**
 * `npm run bench -- --profile [ids]`: runs built Rowbase under `node --cpu-prof` while one
 * scenario loads it, one server process per scenario (so each profile holds one path), and
 * writes a summary of each profile to bench/results/profile-<id>.txt.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { formatProfile, summariseProfile } from './profile-summary.js';
import { choosePinning } from './pinning.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { seedBenchProject, signIn, type SeededProject } from './seed.js';
import { ROOT, startRowbase } from './servers.js';
import { formatCount, formatMs } from './stats.js';

/** The scenarios named by `ids`. Throws for an unknown id. */
export function scenariosById(ids: readonly string[]): Scenario[] {
  return ids.map((id) => {
    const scenario = SCENARIOS.find((s) => s.id === id);
    if (!scenario) throw new Error(`unknown scenario "${id}"; scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}`);
    return scenario;
  });
}

/** Seeds the data `scenarios` read into `dataDir` (a smaller scale table than full runs: 200,000 rows at most). */
export async function seedForScenarios(
  options: BenchOptions,
  dataDir: string,
  platformKey: string,
  scenarios: readonly Scenario[],
): Promise<SeededProject> {
  const seeder = await startRowbase(dataDir, platformKey, { seeding: true });
  const events = scenarios.some((s) => s.id.startsWith('big-') || s.id === 'cursor-deep')
    ? Math.min(options.events, 200_000)
    : 0;
  return seedBenchProject(seeder.url, platformKey, {
    items: options.items,
    users: options.users,
    notesPerUser: options.notesPerUser,
    events,
    posts: scenarios.some((s) => s.id.startsWith('expand-')) ? options.posts : 0,
  }).finally(() => seeder.stop());
}

/** Profiles each scenario in `options.profile`. Throws for an unknown id or a failed load. */
export async function runProfiles(
  options: BenchOptions,
  runDir: string,
  platformKey: string,
  log: (line: string) => void,
): Promise<void> {
  const scenarios = scenariosById(options.profile);
  const pinning = choosePinning(options.pin);
  const dataDir = path.join(runDir, 'profile-data');
  const seeded = await seedForScenarios(options, dataDir, platformKey, scenarios);

  for (const scenario of scenarios) {
    const profileDir = path.join(runDir, 'profiles', scenario.id);
    mkdirSync(profileDir, { recursive: true });
    const spawnedAt = performance.now();
    let loadAt = spawnedAt;
    // 200 µs sampling: the default 1 ms is too coarse for requests that take well under a millisecond.
    const server = await startRowbase(dataDir, platformKey, {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval', '200'],
      ...(scenario.rowbaseEnv && { env: scenario.rowbaseEnv }),
      ...(pinning && { cpus: pinning.server }),
    });
    try {
      const sessions = scenario.needsAuth ? await signIn(server.url, seeded) : undefined;
      if (scenario.needsAuth && !sessions)
        throw new Error(`${scenario.id} needs the login endpoint, which this build lacks`);
      const given = { seeded, sessions };
      const context = scenario.prepare ? await scenario.prepare(given, server.url) : given;
      loadAt = performance.now();
      const result = await runLoad(
        {
          url: server.url,
          connections: scenario.connections,
          durationSeconds: options.profileSeconds,
          requests: scenario.requests(context, 'rowbase'),
          loader: options.loader,
          ...(pinning && { loadCpus: pinning.load }),
        },
        runDir,
      );
      if (result.errors > 0 || result.non2xx > 0)
        throw new Error(
          `${scenario.id}: ${result.errors} errors, ${result.non2xx} ` +
            `non-2xx; first: ${JSON.stringify(result.firstFailure)}`,
        );
      log(
        `${scenario.id} under --cpu-prof: ${formatCount(result.rps)} req/s, p50 ` +
          `${formatMs(result.latency.p50)} ms, p99 ${formatMs(result.latency.p99)} ms`,
      );
    } finally {
      await server.stop(); // the profile is written when the process exits normally
    }
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile in ${profileDir}: did the server exit cleanly?`);
    const text = formatProfile(
      `CPU profile of Rowbase under ${scenario.id} (${scenario.title}), start-up left out`,
      summariseProfile(path.join(profileDir, file), 25, loadAt - spawnedAt),
    );
    const out = path.join(ROOT, 'bench', 'results', `profile-${scenario.id}.txt`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
    log(text.split('\n').slice(0, 40).join('\n'));
    log(
      `Full summary: ${path.relative(ROOT, out)}` +
        (options.keep ? `; raw profile: ${path.relative(ROOT, path.join(profileDir, file))}` : ''),
    );
  }
}
