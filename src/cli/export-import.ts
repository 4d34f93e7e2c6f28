/**
 * `rowbase export --project ID FILE` and `rowbase import FILE [--project NEW_ID]`: a project
 * (schema, rows, users with their password hashes, settings, sessions, outbox) as a file of
 * JSON lines that any engine reads, for moving between SQLite and PostgreSQL.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { buildServices, type Services } from '../app/services.js';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { isoNow } from '../lib/clock.js';
import { exportProject, type ArchiveRecord } from '../projects/project-archive.js';
import { importProject } from '../projects/project-import.js';
import type { ParsedArgs } from './args.js';
import { HELP } from './help.js';
import type { Output } from './output.js';
import { buildWritingServices } from './write-lock.js';

async function withServices<T>(services: Services, use: (services: Services) => Promise<T>): Promise<T> {
  try {
    return await use(services);
  } finally {
    await services.rateLimiter.close?.();
    await services.storage.close();
  }
}

function usage(out: Output, text: string): number {
  out.error(`${text}\n\n${HELP.transfer}`, 'CLI_USAGE', 'Run rowbase --help.');
  return 2;
}

/** `rowbase export --project ID FILE`; resolves with the exit code. */
export async function exportCommand(config: Config, args: ParsedArgs, out: Output): Promise<number> {
  if (args.switches.has('help')) {
    out.text(HELP.transfer);
    return 0;
  }
  const projectId = args.flags.project;
  const file = args.positionals[1];
  if (!projectId || !file || args.positionals.length > 2) return usage(out, 'export needs --project ID and one FILE.');
  const partial = `${file}.partial`;
  // Export only reads: it runs beside a server.
  const counts = await withServices(await buildServices(config), async (services) => {
    // The archive holds password hashes and the JWT secret: readable by its owner only.
    const stream = createWriteStream(partial, { mode: 0o600 });
    const failed = new Promise<never>((_, reject) => stream.once('error', reject));
    try {
      const result = await Promise.race([
        exportProject(services.storage, projectId, isoNow(services.clock), async (record) => {
          if (!stream.write(`${JSON.stringify(record)}\n`)) await once(stream, 'drain');
        }),
        failed,
      ]);
      stream.end();
      await once(stream, 'finish');
      // Only a complete archive gets the name asked for.
      renameSync(partial, file);
      return result;
    } catch (error) {
      stream.destroy();
      rmSync(partial, { force: true });
      throw error;
    }
  });
  const rows = Object.entries(counts)
    .filter(([name]) => name.startsWith('rows:'))
    .reduce((sum, [, n]) => sum + n, 0);
  out.result(
    { project: projectId, file, counts },
    () =>
      `Exported project ${projectId} to ${file}: ${counts.tables ?? 0} tables, ` +
      `${rows} rows. The file holds password hashes and secrets; keep it safe.`,
  );
  return 0;
}

/** The records of an archive file, one JSON object per line. Throws VALIDATION_FAILED on a bad line. */
async function* readArchive(file: string): AsyncGenerator<ArchiveRecord> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line) as ArchiveRecord;
    } catch {
      throw new AppError('VALIDATION_FAILED', {
        message: `Line ${number} of ${file} is not JSON.`,
        suggestion: 'Use a file written by rowbase export, complete and unedited.',
      });
    }
  }
}

/** `rowbase import FILE [--project NEW_ID]`; resolves with the exit code. */
export async function importCommand(config: Config, args: ParsedArgs, out: Output): Promise<number> {
  if (args.switches.has('help')) {
    out.text(HELP.transfer);
    return 0;
  }
  const file = args.positionals[1];
  if (!file || args.positionals.length > 2) return usage(out, 'import needs one FILE.');
  // Import writes: it holds a SQLite data folder, and refuses beside a running server.
  const result = await withServices(await buildWritingServices(config, 'import'), (services) =>
    importProject(services.storage, readArchive(file), { targetId: args.flags.project, now: isoNow(services.clock) }),
  );
  const rows = Object.entries(result.counts)
    .filter(([name]) => name.startsWith('rows:'))
    .reduce((sum, [, n]) => sum + n, 0);
  const data = {
    project: result.projectId,
    kept_keys: result.keptIdentity,
    ...(result.adminKey && { admin_key: result.adminKey, publishable_key: result.publishableKey }),
    counts: result.counts,
  };
  out.result(data, () =>
    [
      `Imported project ${result.projectId}: ${result.counts.tables ?? 0} tables, ${rows} rows.`,
      result.keptIdentity
        ? 'Its keys, JWT secret and sessions were kept: clients and signed-in users carry on.'
        : [
            'Imported as a copy under a new id, with new keys (shown only now) and no sessions:',
            `  admin key (X-Admin-Key):       ${result.adminKey}`,
            `  publishable key (X-Api-Key):   ${result.publishableKey}`,
          ].join('\n'),
    ].join('\n'),
  );
  return 0;
}
