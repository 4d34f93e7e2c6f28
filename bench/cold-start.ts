/**
 * Cold start: from spawning `node dist/main.js serve` to the first answered data request
 * (GET one row by id with the pk_ key, against the seeded data folder), best of nothing:
 * median and range of a few starts. The port is chosen before the spawn so the clock
 * includes everything a restarting deployment waits for.
 */
import { createServer } from 'node:net';
import type { SeededProject } from './seed.js';
import { startRowbase } from './servers.js';
import { ITEMS } from './schema.js';
import { spread, type Spread } from './stats.js';

export interface ColdStartResult {
  readonly starts: number;
  /** Spawn to the first 200 answer, in milliseconds. */
  readonly ms: Spread;
  readonly target: { readonly maxMs: number; readonly met: boolean };
}

export const COLD_START_LIMIT_MS = 300;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts Rowbase `starts` times over `dataDir` and times spawn → first answered GET by id. */
export async function measureColdStart(
  dataDir: string,
  platformKey: string,
  seeded: SeededProject,
  cpus: string | undefined,
  starts = 3,
): Promise<ColdStartResult> {
  const times: number[] = [];
  const path = `/p/${seeded.projectId}/api/${ITEMS.name}/${seeded.itemIds[0]}`;
  for (let n = 0; n < starts; n++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}${path}`;
    const spawned = performance.now();
    let answered = 0;
    // Polls from the moment of the spawn; the server announces itself only once it listens.
    const poll = (async () => {
      while (performance.now() - spawned < 20_000) {
        try {
          const response = await fetch(url, { headers: { 'x-api-key': seeded.publishableKey } });
          await response.arrayBuffer();
          if (response.status === 200) {
            answered = performance.now() - spawned;
            return answered;
          }
          throw new Error(`cold start: GET answered ${response.status}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('cold start')) throw error;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
      throw new Error('cold start: no answer within 20 s');
    })();
    const server = await startRowbase(dataDir, platformKey, { ...(cpus && { cpus }), env: { PORT: String(port) } });
    try {
      await poll;
      times.push(answered);
    } finally {
      await server.stop();
    }
  }
  const ms = spread(times);
  return { starts, ms, target: { maxMs: COLD_START_LIMIT_MS, met: ms.median < COLD_START_LIMIT_MS } };
}
