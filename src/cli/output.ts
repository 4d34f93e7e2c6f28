/** CLI output: human text by default, JSON with --json (errors too, on stderr). */
import { isAppError } from '../errors/app-error.js';
import { StorageStartError } from '../store/types.js';

export interface Output {
  /** Prints a result: JSON when --json, else the human rendering. */
  result(data: unknown, human: () => string): void;
  text(message: string): void;
  error(message: string, code?: string, suggestion?: string): void;
}

/** Builds the output for one run; `json` (the --json switch) prints results and errors as JSON. */
export function buildOutput({ json }: { readonly json: boolean }): Output {
  return {
    result: (data, human) => process.stdout.write(`${json ? JSON.stringify(data, null, 2) : human()}\n`),
    text: (message) => process.stdout.write(`${message}\n`),
    error: (message, code = 'CLI_ERROR', suggestion) =>
      process.stderr.write(
        json
          ? `${JSON.stringify({ error: { code, message, suggestion: suggestion ?? 'Run rowbase --help.' } })}\n`
          : `error: ${message}${suggestion ? `\n${suggestion}` : ''}\n`,
      ),
  };
}

/** A command's refusal that is not an HTTP error: its own code and what to do instead. */
export class CliRefusal extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly suggestion: string,
  ) {
    super(message);
    this.name = 'CliRefusal';
  }
}

/** Prints an error thrown by a command in the same words the HTTP API uses. */
export function reportError(out: Output, error: unknown): void {
  if (isAppError(error)) out.error(`${error.code}: ${error.message}`, error.code, error.suggestion);
  else if (error instanceof CliRefusal) out.error(error.message, error.code, error.suggestion);
  else if (error instanceof StorageStartError) out.error(error.message, 'STORAGE_UNAVAILABLE', error.suggestion);
  else out.error(error instanceof Error ? error.message : String(error));
}
