/** A small argv parser: positionals, `--flag value`, `--flag=value` and boolean `--flag`. */

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, string>>;
  readonly switches: ReadonlySet<string>;
}

const SWITCHES = new Set(['json', 'help', 'dry-run', 'allow-destructive', 'yes']);

/** Splits argv; a flag listed as a switch takes no value. Throws on a flag missing its value. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string> = {};
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      switches.add('help');
    } else if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (SWITCHES.has(name)) switches.add(name);
      else if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[name] = argv[++i]!;
      else throw new Error(`--${name} needs a value.`);
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, flags, switches };
}
