/** Process entry: argv and environment in, exit code out. Nothing imports this file. */
import { runCli } from './cli/run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), process.env);
