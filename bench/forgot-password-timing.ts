/**
 * `npm run bench:forgot-password [-- --rounds N --database-url URL]`: does forgot-password take the
 * same time for a known and an unknown email (issue 10 item 3)? Before answering, both do the same
 * work (check the body, count the mail, store one request), so the answer's timing should say
 * nothing about the address.
 *
 * This is a measurement, not a pass/fail test (issue 27 item 7): on a busy 2-core machine the
 * medians of two groups of *identical* requests drift apart by 5-20 % over a few hundred pairs,
 * so a fixed threshold made a flaky test. It alternates known and unknown emails (in a shuffled
 * order within each pair, so drift on a busy machine hits both alike), prints the medians after
 * each round (noise shrinks as samples grow, a real difference does not) and a bootstrap 95 %
 * interval of the ratio of the medians. An interval that stays clear of 1.0 run after run is the
 * sign of a leak; one that straddles 1.0 is what equal work looks like. It exits non-zero only
 * when it cannot measure (a failed set-up or a non-200 answer).
 *
 * The server is `dist/main.js` as a child process with RATE_LIMITS=off; on SQLite with
 * SQLITE_SYNCHRONOUS=normal (the fsync of the one insert is the same for both, and without it disk
 * contention from other processes, the largest source of noise, is gone). `--database-url` runs it
 * on an existing, empty PostgreSQL database instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { call, expectStatus } from './http-client.js';
import { startRowbase } from './servers.js';
import { spread } from './stats.js';

const PROJECT = 'reset-timing';
const ORIGIN = 'https://app.example.com';
const PLATFORM_KEY = 'rb_bench_platform_key_0123456789abcdef';
const KNOWN_USERS = 10;
const WARM_UP = 20;
// Each round measures pairs until its budget is spent (at least MIN_PAIRS): a busy machine gets
// fewer, slower samples rather than a longer run.
const ROUND_BUDGET_MS = 3_000;
const MIN_PAIRS = 80;
// A pause after each request, as between two requests of a real client. The request worker
// resolves in batches 100-200 ms after a wake-up, so its work (which does differ between known and
// unknown emails) lands on some later request or pause, whatever that request's email.
const PAUSE_MS = 10;
const BOOTSTRAP_SAMPLES = 2_000;

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '4' }, 'database-url': { type: 'string' } },
});
const rounds = Number(flags.rounds);

/** A random resample (with replacement) of `values`, as the bootstrap draws it. */
function resample(values: readonly number[]): number[] {
  return Array.from({ length: values.length }, () => values[Math.floor(Math.random() * values.length)]!);
}

/** The 2.5th and 97.5th percentiles of known/unknown median ratios over bootstrap resamples. */
function ratioInterval(known: readonly number[], unknown: readonly number[]): [number, number] {
  const ratios = Array.from(
    { length: BOOTSTRAP_SAMPLES },
    () => spread(resample(known)).median / spread(resample(unknown)).median,
  ).sort((a, b) => a - b);
  return [ratios[Math.floor(BOOTSTRAP_SAMPLES * 0.025)]!, ratios[Math.floor(BOOTSTRAP_SAMPLES * 0.975)]!];
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'rowbase-timing-'));
const databaseUrl = flags['database-url'];
const server = await startRowbase(dataDir, PLATFORM_KEY, {
  name: 'forgot-password-timing',
  env: databaseUrl ? { DATABASE_URL: databaseUrl } : { SQLITE_SYNCHRONOUS: 'normal' },
});
try {
  const { url } = server;
  const created = await expectStatus(
    201,
    url,
    'POST',
    '/v1/projects',
    { 'x-platform-key': PLATFORM_KEY },
    { name: PROJECT, id: PROJECT },
  );
  const admin = { 'x-admin-key': created.body.data.admin_key as string };
  await expectStatus(201, url, 'PUT', `/p/${PROJECT}/v1/tables/users`, admin, { auth_table: true, columns: [] });
  await expectStatus(200, url, 'PUT', `/p/${PROJECT}/v1/redirect-origins`, admin, {
    allowed_redirect_origins: [ORIGIN],
  });
  const known = Array.from({ length: KNOWN_USERS }, (_, i) => `member${i}@example.com`);
  for (const email of known) {
    await expectStatus(201, url, 'POST', `/p/${PROJECT}/auth/signup`, {}, { email, password: 'correct horse battery' });
  }

  const timed = async (email: string): Promise<number> => {
    const started = performance.now();
    const response = await call(
      url,
      'POST',
      `/p/${PROJECT}/auth/forgot-password`,
      {},
      {
        email,
        redirect_url: `${ORIGIN}/reset`,
      },
    );
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`forgot-password answered ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    return elapsed;
  };
  for (let i = 0; i < WARM_UP; i++) await timed(i % 2 === 0 ? known[i % KNOWN_USERS]! : `warm${i}@example.com`);

  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  let pair = 0;
  console.log(`forgot-password timing on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}: ${rounds} rounds`);
  for (let round = 0; round < rounds; round++) {
    const started = Date.now();
    for (let i = 0; i < MIN_PAIRS || Date.now() - started < ROUND_BUDGET_MS; i++, pair++) {
      const runKnown = async () => knownTimes.push(await timed(known[pair % KNOWN_USERS]!));
      const runUnknown = async () => unknownTimes.push(await timed(`nobody${pair}@example.com`));
      if (Math.random() < 0.5) {
        await runKnown();
        await runUnknown();
      } else {
        await runUnknown();
        await runKnown();
      }
    }
    const knownMedian = spread(knownTimes).median;
    const unknownMedian = spread(unknownTimes).median;
    console.log(
      `  after ${knownTimes.length} pairs: median known ${knownMedian.toFixed(3)} ms, ` +
        `unknown ${unknownMedian.toFixed(3)} ms, ratio ${(knownMedian / unknownMedian).toFixed(3)}`,
    );
  }
  const [low, high] = ratioInterval(knownTimes, unknownTimes);
  const verdict = low <= 1 && high >= 1 ? 'straddles 1.0 (no measurable difference)' : 'clear of 1.0: look closer';
  console.log(
    `  known/unknown median ratio, bootstrap 95 % interval: ${low.toFixed(3)}-${high.toFixed(3)}, ${verdict}`,
  );

  // The measured path is the real one: the known emails did get mail, the unknown ones none.
  const mails = await expectStatus(200, url, 'GET', `/p/${PROJECT}/v1/emails?limit=1000`, admin);
  const recipients = new Set((mails.body.data as { to: string }[]).map((mail) => mail.to));
  const unmailed = known.filter((email) => !recipients.has(email)).length;
  const strays = [...recipients].filter((to) => to.startsWith('nobody') || to.startsWith('warm')).length;
  console.log(`  mail: ${KNOWN_USERS - unmailed}/${KNOWN_USERS} known addresses mailed, ${strays} unknown ones`);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
