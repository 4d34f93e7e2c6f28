/**
 * Which flags a command accepts, read from where they are declared: the settings
 * (`SETTINGS` in config.ts, shared by every command since each reads the configuration) and
 * the command's own help text (help.ts). A flag a command reads must be named in its help,
 * so a flag added there is accepted with no second list to keep in sync, and a flag that is
 * accepted is always documented.
 */
import { SETTINGS } from '../config/config.js';
import { closestName } from '../lib/edit-distance.js';
import type { ParsedArgs } from './args.js';
import { helpOf } from './help.js';

/** Accepted by every command. */
const GLOBAL_FLAGS = Object.freeze(['--help', '--json']);

/** The flags `rowbase <command>` accepts, with their dashes (`--port`). Never throws. */
export function knownFlags(command: string | undefined): ReadonlySet<string> {
  const fromHelp = (helpOf(command) ?? '').match(/--[a-z][a-z0-9-]*/g) ?? [];
  return new Set([...GLOBAL_FLAGS, ...SETTINGS.map((s) => s.flag), ...fromHelp]);
}

/** A refused command line: what is wrong and what to run instead. */
export interface FlagProblem {
  readonly message: string;
  readonly suggestion: string;
}

/**
 * The first flag of `args` that `command` does not accept (with the closest known flag as a
 * suggestion), else the first value flag given without its value, else undefined. An unknown
 * command (no help text) is left for the dispatcher to refuse by name.
 */
export function checkFlags(command: string | undefined, args: ParsedArgs): FlagProblem | undefined {
  const known = knownFlags(command);
  const usage = command === undefined ? 'rowbase' : `rowbase ${command}`;
  if (helpOf(command) === undefined) return undefined;
  for (const flag of args.written) {
    if (known.has(flag)) continue;
    const bare = flag.replace(/^-+/, '');
    const close = closestName(
      bare,
      [...known].map((name) => name.slice(2)),
    );
    return {
      message: `unknown flag ${flag} for ${usage}.`,
      suggestion: close
        ? `Did you mean --${close}? Run ${usage} --help to see its flags.`
        : `Run ${usage} --help to see its flags.`,
    };
  }
  const missing = args.missingValue[0];
  if (missing !== undefined)
    return {
      message: `${missing} needs a value.`,
      suggestion: `Write ${missing} VALUE or ${missing}=VALUE; run ${usage} --help to see its flags.`,
    };
  return undefined;
}
