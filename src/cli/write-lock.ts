/**
 * CLI commands that write to a SQLite data folder take it exclusively while they run, like a
 * server does (one process per folder: docs/deploy.md). Beside a running server they refuse,
 * saying what to do instead. Read-only commands (projects list, export) build their services
 * without the lock and run beside a server.
 */
import { buildServices, type Services } from '../app/services.js';
import type { Config } from '../config/config.js';
import { DataDirInUseError } from '../store/data-dir-in-use.js';
import { CliRefusal } from './output.js';

/** The CLI commands that write, as the holder record names them. */
export type WritingCommand = 'serve' | 'projects create' | 'projects delete' | 'schema apply' | 'import';

/**
 * Builds the services for a writing command, holding a SQLite data folder until storage closes.
 * Throws CliRefusal (code DATA_DIR_IN_USE, naming the folder and the holder's PID) when another
 * process holds it; `project` fills the HTTP alternative in the suggestion.
 */
export async function buildWritingServices(
  config: Config,
  command: WritingCommand,
  project?: string,
): Promise<Services> {
  try {
    return await buildServices(config, { lockDataDirAs: `rowbase ${command}` });
  } catch (error) {
    throw refusalFor(error, command, project);
  }
}

/** DataDirInUseError as a CliRefusal with what to do instead; any other error unchanged. */
export function refusalFor(error: unknown, command: WritingCommand, project = 'ID'): unknown {
  if (!(error instanceof DataDirInUseError)) return error;
  const holder = error.holder;
  const pid = holder ? `PID ${holder.pid}` : 'its PID is in rowbase.pid';
  let suggestion: string;
  if (command === 'serve') {
    suggestion = `Stop that process first (${pid}), or start this server on another folder with --data-dir / DATA_DIR.`;
  } else if (holder && holder.command !== 'rowbase serve') {
    suggestion = `Wait for ${holder.command} (${pid}) to finish, then run this again.`;
  } else {
    const instead: Record<Exclude<WritingCommand, 'serve'>, string> = {
      'projects create':
        'Create the project through the running server instead (POST ' +
        '/v1/projects with X-Platform-Key), or stop the server',
      'projects delete':
        'Delete the project through the running server instead ' +
        `(DELETE /v1/projects/${project} with X-Platform-Key), or stop the server`,
      'schema apply':
        'Declare each table through the running server instead (PUT ' +
        `/p/${project}/v1/tables/NAME with X-Admin-Key; --dry-run works beside it), or stop the server`,
      import: 'Stop the server',
    };
    suggestion = `${instead[command]} (${pid}), run this command, and start the server again.`;
  }
  return new CliRefusal(`DATA_DIR_IN_USE: ${error.message}`, 'DATA_DIR_IN_USE', suggestion);
}
