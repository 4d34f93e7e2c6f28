/** The rowbase CLI: dispatches a command and resolves with its exit code. */
import { ConfigError, loadConfig } from '../config/config.js';
import { parseArgs } from './args.js';
import { exportCommand, importCommand } from './export-import.js';
import { generatedDocsCommand } from './generated-docs.js';
import { HELP } from './help.js';
import { checkFlags } from './known-flags.js';
import { buildOutput, reportError } from './output.js';
import { projectsCommand } from './projects.js';
import { schemaCommand } from './schema-apply.js';
import { serve } from './serve.js';

export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const args = parseArgs(argv);
  const out = buildOutput({ json: args.switches.has('json') });
  const command = args.positionals[0];
  // A mistyped flag must not be ignored (`serve --prot 1` serving on 8080): refuse it, naming the closest one.
  const problem = checkFlags(command, args);
  if (problem) {
    out.error(problem.message, 'CLI_USAGE', problem.suggestion);
    return 2;
  }
  try {
    const config = loadConfig(env, args.flags);
    switch (command) {
      case 'serve':
        if (args.switches.has('help')) return print(out, HELP.serve);
        return await serve(config);
      case 'projects':
        return await projectsCommand(config, args, out);
      case 'schema':
        return await schemaCommand(config, args, out);
      case 'export':
        return await exportCommand(config, args, out);
      case 'import':
        return await importCommand(config, args, out);
      case 'openapi':
      case 'types':
        return await generatedDocsCommand(command, config, args, env, out);
      case undefined:
        return print(out, HELP.main, args.switches.has('help') ? 0 : 2);
      default:
        out.error(`unknown command "${command}".`, 'CLI_USAGE', 'Run rowbase --help to see the commands.');
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      out.error(error.message, 'CONFIG_INVALID', 'Run rowbase serve --help to see the settings.');
      return 2;
    }
    reportError(out, error);
    return 1;
  }
}

function print(out: ReturnType<typeof buildOutput>, text: string, code = 0): number {
  out.text(text);
  return code;
}
