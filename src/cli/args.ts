/** A small argv parser: positionals, `--flag value`, `--flag=value` and boolean `--flag`. */

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, string>>;
  readonly switches: ReadonlySet<string>;
  /** Every flag as written (`--port`, `-p`), in order, to be checked against the command's flags. */
  readonly written: readonly string[];
  /** Value flags given without a value (`--port` at the end), refused once the flags are checked. */
  readonly missingValue: readonly string[];
}

/** Flags that take no value; every other flag takes one. */
export const SWITCHES: ReadonlySet<string> = new Set(['json', 'help', 'dry-run', 'allow-destructive', 'yes']);

// `-1` or `-0.5` is a value (a negative number), not a flag.
const isFlag = (arg: string): boolean => arg.length > 1 && arg.startsWith('-') && !/^-\d/.test(arg);

/**
 * Splits argv; a flag listed as a switch takes no value, `-h` is `--help`. Never throws: flags
 * missing their value are listed in `missingValue` for the caller to refuse.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string> = {};
  const switches = new Set<string>();
  const written: string[] = [];
  const missingValue: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      switches.add('help');
      written.push('--help');
    } else if (arg.startsWith('--') && arg.length > 2) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      written.push(`--${name}`);
      if (SWITCHES.has(name)) switches.add(name);
      else if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[name] = argv[++i]!;
      else missingValue.push(`--${name}`);
    } else if (isFlag(arg)) {
      // Short flags other than -h do not exist; recorded so that `-p 9000` is refused, not ignored.
      written.push(arg.split('=', 1)[0]!);
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, flags, switches, written, missingValue };
}
