/**
 * `rowbase openapi --project ID` and `rowbase types --project ID`: print the project's
 * OpenAPI document or its TypeScript declarations. They read the storage like the other
 * commands, or, with `--url URL --admin-key KEY`, a running server over HTTP.
 */
import { buildServices } from '../app/services.js';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/codes.js';
import { buildArtefacts, type ProjectArtefacts } from '../openapi/project-documents.js';
import type { TableDefinition } from '../schema/definition.js';
import type { ParsedArgs } from './args.js';
import { HELP } from './help.js';
import type { Output } from './output.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Runs `rowbase openapi` or `rowbase types`; resolves with the exit code. */
export async function generatedDocsCommand(
  kind: 'openapi' | 'types',
  config: Config,
  args: ParsedArgs,
  env: Env,
  out: Output,
): Promise<number> {
  const help = kind === 'openapi' ? HELP.openapi : HELP.types;
  if (args.switches.has('help')) {
    out.text(help);
    return 0;
  }
  const projectId = args.flags.project;
  if (!projectId || args.positionals.length > 1) {
    out.error(`${kind} needs --project ID.\n\n${help}`, 'CLI_USAGE', `Run rowbase ${kind} --help.`);
    return 2;
  }
  const url = args.flags.url;
  const adminKey = args.flags['admin-key'] ?? env.ROWBASE_ADMIN_KEY;
  if (url !== undefined && !adminKey) {
    out.error(
      '--url needs the project admin key: --admin-key KEY (or ROWBASE_ADMIN_KEY).',
      'CLI_USAGE',
      `Run rowbase ${kind} --help.`,
    );
    return 2;
  }
  if (url !== undefined) {
    const base = serverBase(url);
    // The document exactly as the server serves it; the declarations from the server's tables.
    if (kind === 'openapi')
      out.text(await readServer(base, `/p/${encodeURIComponent(projectId)}/v1/openapi.json`, adminKey!));
    else
      out.text(
        buildArtefacts(
          parseTables(await readServer(base, `/p/${encodeURIComponent(projectId)}/v1/tables`, adminKey!)),
          { projectId, publicUrl: base },
        )
          .types()
          .trimEnd(),
      );
    return 0;
  }
  const artefacts = await fromStorage(config, projectId);
  // Printed as they are, also with --json: the document is JSON already, the declarations are code.
  out.text(kind === 'openapi' ? artefacts.json : artefacts.types().trimEnd());
  return 0;
}

async function fromStorage(config: Config, projectId: string): Promise<ProjectArtefacts> {
  const services = await buildServices(config);
  try {
    await services.registry.get(projectId);
    return await services.openapi.artefacts(projectId);
  } finally {
    await services.rateLimiter.close?.(); // a Redis connection (REDIS_URL) would keep the process alive
    await services.storage.close();
  }
}

/** The server base URL without a trailing slash. Throws VALIDATION_FAILED for a malformed one. */
function serverBase(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    throw new AppError('VALIDATION_FAILED', {
      message: `--url is not a URL: "${url}".`,
      suggestion: 'Give the server base URL, for example --url http://127.0.0.1:8080.',
    });
  }
}

/**
 * GETs an admin path of a running server and returns the body text. Throws the server's
 * error (its code, message and suggestion) when it refuses, or an Error when it cannot be reached.
 */
async function readServer(base: string, route: string, adminKey: string): Promise<string> {
  const response = await fetch(`${base}${route}`, { headers: { 'x-admin-key': adminKey } }).catch((error: unknown) => {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`cannot reach ${base}: ${cause}`);
  });
  const text = await response.text();
  if (response.ok) return text;
  let error: { code?: string; message?: string; suggestion?: string } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  if (error?.code && Object.hasOwn(ERROR_CODES, error.code))
    throw new AppError(error.code as ErrorCode, { message: error.message, suggestion: error.suggestion });
  throw new Error(`${base}${route} answered ${response.status} without a Rowbase error; is --url a Rowbase server?`);
}

/** The definitions of a GET /p/{id}/v1/tables answer. */
function parseTables(text: string): TableDefinition[] {
  const body = JSON.parse(text) as { data?: unknown };
  if (!Array.isArray(body.data)) throw new Error('the server answered GET /v1/tables without a list of tables.');
  return body.data as TableDefinition[];
}
