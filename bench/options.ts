/**
 * The harness's command line: `npm run bench -- [flags]`. The defaults size a full run to
 * finish in under 10 minutes on 2 cores; `--quick` is a smoke run of a minute or two.
 */

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
  readonly footprintProjects: number;
  readonly footprintTables: number;
  /** Scenario ids to run (and "footprint"); empty means all. */
  readonly only: readonly string[];
  /** Write docs/benchmarks.md (default: yes, except for --quick and --only). */
  readonly docs: boolean;
  /** Scenario ids to profile with --cpu-prof instead of benchmarking; empty means no profiling. */
  readonly profile: readonly string[];
  readonly profileSeconds: number;
  /** Keep the data folders under .bench-tmp/ afterwards. */
  readonly keep: boolean;
}

export const USAGE = `npm run bench -- [flags]

  --quick               smoke run: 1 short run per scenario, 50,000-row scale table, 50 projects
  --runs N              measured runs per scenario and server (default 3)
  --duration S          seconds per run (default 4)
  --warmup S            warm-up seconds per scenario and server (default 1)
  --events N            rows of the scale table (default 1000000)
  --projects N          projects of the footprint scenario (default 1000)
  --only a,b            run only these scenarios (ids as printed; "footprint" for the footprint)
  --docs / --no-docs    write docs/benchmarks.md (default: on for full runs)
  --profile [a,b]       CPU-profile Rowbase under these scenarios instead (default get-by-id,list-total)
  --profile-seconds S   seconds of load per profile (default 10)
  --keep                keep the data folders under .bench-tmp/`;

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
  const known = ['quick', 'runs', 'duration', 'warmup', 'events', 'projects', 'only', 'docs', 'no-docs', 'profile', 'profile-seconds', 'keep', 'help'];
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
    return value === true ? fallback : value.split(',').map((s) => s.trim()).filter(Boolean);
  };

  const quick = flags.has('quick');
  const only = list('only', []);
  return {
    quick,
    runs: Math.max(1, Math.round(number('runs', quick ? 1 : 3))),
    durationSeconds: number('duration', quick ? 1 : 4),
    warmupSeconds: number('warmup', quick ? 0.5 : 1),
    events: Math.round(number('events', quick ? 50_000 : 1_000_000)),
    items: 10_000,
    users: 20,
    notesPerUser: 500,
    footprintProjects: Math.round(number('projects', quick ? 50 : 1000)),
    footprintTables: 10,
    only,
    docs: flags.has('no-docs') ? false : flags.has('docs') || (!quick && only.length === 0),
    profile: list('profile', ['get-by-id', 'list-total']),
    profileSeconds: number('profile-seconds', 10),
    keep: flags.has('keep'),
  };
}
