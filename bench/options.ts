/**
 * The harness's command line: `npm run bench -- [flags]`. The defaults size a full run to
 * finish in under 10 minutes on 2 cores; `--quick` is a smoke run of a minute or two.
 */

import { wrkAvailable } from './wrk-load.js';

/** The local PostgreSQL of the test suite; the harness creates and drops its own database there. */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** What `--check` runs: the scenarios with a ratio target. */
export const CHECKED_SCENARIOS = ['get-by-id', 'list-total', 'list-no-count', 'create', 'bulk-1000'] as const;

export interface BenchOptions {
  readonly quick: boolean;
  readonly runs: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** Rows of the scale table. */
  readonly events: number;
  readonly items: number;
  readonly users: number;
  readonly notesPerUser: number;
  /** Rows of `posts` (3 comments each) for the expand scenario; seeded only when it runs. */
  readonly posts: number;
  readonly footprintProjects: number;
  readonly footprintTables: number;
  /** Scenario ids to run (and "footprint"); empty means all. */
  readonly only: readonly string[];
  /** Write docs/benchmarks.md (default: yes, except for --quick and --only). */
  readonly docs: boolean;
  /** Scenario ids to profile with --cpu-prof instead of benchmarking; empty means no profiling. */
  readonly profile: readonly string[];
  readonly profileSeconds: number;
  /** Scenario ids to time SQLite statements under (bench/statement-times.ts) instead of benchmarking. */
  readonly statementTimes: readonly string[];
  /** Keep the data folders under .bench-tmp/ afterwards. */
  readonly keep: boolean;
  /** The load generator: wrk (default when installed) or autocannon. */
  readonly loader: 'wrk' | 'autocannon';
  /** Pin the server and the load generator to separate cores (taskset); default on. */
  readonly pin: boolean;
  /** The regression guard: a short run judged against the targets; exits 1 below target by more than the noise. */
  readonly check: boolean;
  /** The dist/ folder of the Rowbase build under test (default dist/, built by scripts/bench.mjs). */
  readonly dist: string | undefined;
  /**
   * A/B: a dist/ folder of another Rowbase build that takes the baseline's place (ratios become this build / that one).
   */
  readonly ab: string | undefined;
  /** Also run the PostgreSQL scenarios against this database URL (its own scratch database is created and dropped). */
  readonly postgresUrl: string | undefined;
}

export const USAGE = `npm run bench -- [flags]

  --quick               smoke run: 1 short run per scenario, 50,000-row scale table, 50 projects
  --runs N              measured runs per scenario and server (default 3)
  --duration S          seconds per run (default 4)
  --warmup S            warm-up seconds per scenario and server (default 1)
  --events N            rows of the scale table (default 1000000)
  --projects N          projects of the footprint scenario (default 1000)
  --only a,b            run only these scenarios (ids as printed; "footprint" for the footprint,
                        "realtime" for the realtime fan-out and idle-clients scenarios)
  --docs / --no-docs    write docs/benchmarks.md (default: on for full runs)
  --profile [a,b]       CPU-profile Rowbase under these scenarios instead (default get-by-id,list-total)
  --profile-seconds S   seconds of load per profile (default 10)
  --statement-times [a,b]  time every SQLite statement inside Rowbase under these scenarios
                        (and their reference loads) instead (default expand-list); seconds of
                        load from --profile-seconds
  --keep                keep the data folders under .bench-tmp/
  --loader wrk|autocannon  load generator (default wrk when /usr/bin/wrk exists)
  --no-pin              do not pin server (CPU 0) and load generator (CPU 1) with taskset
  --check               regression guard: short run (< 3 min) of the ratio targets; exits 1
                        when a ratio is below its target by more than the measured noise
  --dist DIR            benchmark the Rowbase build in DIR instead of dist/ (run bench/main.ts
                        directly to skip the build)
  --ab DIST            A/B: run the build in DIST (a dist/ folder, e.g. of the previous commit)
                        in the baseline's place; ratios are then this build / that build
  --postgres URL        also benchmark Rowbase on PostgreSQL against the pg baseline
                        (default postgres://postgres@127.0.0.1:5432/postgres; --postgres off to skip)`;

/** Parses flags; throws with the usage text for anything unknown. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"\n\n${USAGE}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) flags.set(name, inline);
    else if (next !== undefined && !next.startsWith('--')) flags.set(name, argv[++i]!);
    else flags.set(name, true);
  }
  const known = [
    'quick',
    'runs',
    'duration',
    'warmup',
    'events',
    'projects',
    'only',
    'docs',
    'no-docs',
    'profile',
    'profile-seconds',
    'statement-times',
    'keep',
    'help',
    'loader',
    'no-pin',
    'check',
    'postgres',
    'ab',
    'dist',
  ];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`unknown flag --${name}\n\n${USAGE}`);
  if (flags.has('help')) throw new Error(USAGE);

  const number = (name: string, fallback: number): number => {
    const value = flags.get(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (value === true || !Number.isFinite(n) || n < 0) throw new Error(`--${name} needs a number\n\n${USAGE}`);
    return n;
  };
  const list = (name: string, fallback: string[]): string[] => {
    const value = flags.get(name);
    if (value === undefined) return [];
    return value === true
      ? fallback
      : value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  };

  const check = flags.has('check');
  const quick = flags.has('quick') || check;
  const only = flags.has('only') ? list('only', []) : check ? [...CHECKED_SCENARIOS] : [];
  const loader = flags.get('loader') ?? (wrkAvailable() ? 'wrk' : 'autocannon');
  if (loader !== 'wrk' && loader !== 'autocannon') throw new Error(`--loader is wrk or autocannon\n\n${USAGE}`);
  if (loader === 'wrk' && !wrkAvailable())
    throw new Error('--loader wrk: /usr/bin/wrk is not installed (Debian: apt install wrk)');
  const postgres = flags.get('postgres');
  // The check stays on SQLite unless --postgres is given; full runs include PostgreSQL unless --postgres off.
  const postgresUrl =
    postgres === 'off'
      ? undefined
      : typeof postgres === 'string'
        ? postgres
        : check || (flags.has('only') && !only.some((id) => id.startsWith('pg-')))
          ? undefined
          : DEFAULT_POSTGRES_URL;
  return {
    quick,
    runs: Math.max(1, Math.round(number('runs', check ? 3 : quick ? 1 : 3))),
    durationSeconds: number('duration', check ? 2 : quick ? 1 : 4),
    warmupSeconds: number('warmup', quick ? 0.5 : 1),
    events: Math.round(number('events', check ? 0 : quick ? 50_000 : 1_000_000)),
    items: 10_000,
    users: 20,
    notesPerUser: 500,
    posts: 10_000,
    footprintProjects: Math.round(number('projects', quick ? 50 : 1000)),
    footprintTables: 10,
    only,
    docs: flags.has('no-docs') ? false : flags.has('docs') || (!quick && only.length === 0),
    profile: list('profile', ['get-by-id', 'list-total']),
    profileSeconds: number('profile-seconds', 10),
    statementTimes: list('statement-times', ['expand-list']),
    keep: flags.has('keep'),
    loader,
    pin: !flags.has('no-pin'),
    check,
    postgresUrl,
    dist: typeof flags.get('dist') === 'string' ? (flags.get('dist') as string) : undefined,
    ab: typeof flags.get('ab') === 'string' ? (flags.get('ab') as string) : undefined,
  };
}
