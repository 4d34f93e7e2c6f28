/**
 * The footprint scenario: many projects of many tables on one server. A first server
 * creates them through the platform and schema APIs; a fresh server process then touches
 * each project once (a cold project: its file closed, nothing cached), timing that first
 * request, and its memory is read afterwards.
 */
import { expectStatus } from './http-client.js';
import { summariseLatency, type Latency } from './load-spec.js';
import type { GoalResult } from './run-scenario.js';
import { ITEMS } from './schema.js';
import type { ServerProcess } from './server-process.js';
import { formatMiB, formatMs } from './stats.js';

export interface FootprintOptions {
  readonly projects: number;
  readonly tablesPerProject: number;
  readonly platformKey: string;
  /** Starts a Rowbase process over the footprint data folder (`seeding`: for creating projects, not measuring). */
  readonly start: (seeding: boolean) => Promise<ServerProcess>;
  readonly log: (line: string) => void;
}

export interface FootprintResult {
  readonly projects: number;
  readonly tablesPerProject: number;
  readonly seedSeconds: number;
  /** VmRSS of the fresh process before any project was touched. */
  readonly rssIdle: number;
  /** VmRSS after every project was touched once. */
  readonly rssAfterTouch: number;
  /** VmHWM of the fresh process at the end. */
  readonly peakRss: number;
  readonly coldFirstRequest: Latency;
  /** The same request again, to a project already open (for comparison). */
  readonly warmRequest: Latency;
  readonly goals: readonly GoalResult[];
}

const RSS_LIMIT = 300 * 1024 * 1024;
const COLD_LIMIT_MS = 20;

async function timedGet(url: string, route: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  await expectStatus(200, url, 'GET', route, headers);
  return performance.now() - started;
}

/** Creates the projects, restarts, touches each once. Throws when a request fails. */
export async function runFootprint(options: FootprintOptions): Promise<FootprintResult> {
  const keys: { id: string; pk: string }[] = new Array(options.projects);
  const seedStarted = performance.now();
  const seeder = await options.start(true);
  try {
    let next = 0;
    // Two projects in flight: the harness prepares one request while the server works on the other.
    const lane = async () => {
      while (next < options.projects) {
        const n = next++;
        const id = `fp-${String(n).padStart(4, '0')}`;
        const project = await expectStatus(
          201,
          seeder.url,
          'POST',
          '/v1/projects',
          { 'x-platform-key': options.platformKey },
          { name: `Footprint ${n}`, id },
        );
        const admin = { 'x-admin-key': project.body.data.admin_key as string };
        for (let t = 0; t < options.tablesPerProject; t++) {
          await expectStatus(201, seeder.url, 'PUT', `/p/${id}/v1/tables/t${t}`, admin, ITEMS.definition);
        }
        keys[n] = { id, pk: project.body.data.publishable_key as string };
        if ((n + 1) % 250 === 0) options.log(`  footprint: ${n + 1}/${options.projects} projects created`);
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await seeder.stop();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const server = await options.start(false);
  try {
    await expectStatus(200, server.url, 'GET', '/health');
    const rssIdle = server.rss();
    const cold = new Float64Array(keys.length);
    for (const [i, key] of keys.entries()) {
      cold[i] = await timedGet(server.url, `/p/${key.id}/api/t${i % options.tablesPerProject}?limit=1`, {
        'x-api-key': key.pk,
      });
    }
    const rssAfterTouch = server.rss();
    // The last projects touched are still open: their second request is a warm one.
    const recent = keys.slice(-Math.min(100, keys.length));
    const warm = new Float64Array(recent.length);
    for (const [i, key] of recent.entries())
      warm[i] = await timedGet(server.url, `/p/${key.id}/api/t0?limit=1`, { 'x-api-key': key.pk });
    const coldFirstRequest = summariseLatency(cold);
    const goals: GoalResult[] = [
      {
        text: `RSS after touching ${keys.length} projects < ${formatMiB(RSS_LIMIT)}`,
        measured: formatMiB(rssAfterTouch),
        met: rssAfterTouch < RSS_LIMIT,
      },
      {
        text: `first request to a cold project p50 < ${COLD_LIMIT_MS} ms`,
        measured: `${formatMs(coldFirstRequest.p50)} ms (p99 ${formatMs(coldFirstRequest.p99)} ms)`,
        met: coldFirstRequest.p50 < COLD_LIMIT_MS,
      },
    ];
    return {
      projects: keys.length,
      tablesPerProject: options.tablesPerProject,
      seedSeconds,
      rssIdle,
      rssAfterTouch,
      peakRss: server.peakRss(),
      coldFirstRequest,
      warmRequest: summariseLatency(warm),
      goals,
    };
  } finally {
    await server.stop();
  }
}
