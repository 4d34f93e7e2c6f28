/**
 * Writes packages/client/src/error-codes.ts, the SDK's `ErrorCode` union, from the server's
 * catalogue (src/errors/codes.ts), so `RowbaseError.code` offers every code the server can
 * answer. Run by `npm run docs:errors`; test/unit/docs/client-error-codes.test.ts fails when
 * the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { ERROR_CODES } from '../src/errors/codes.js';

/** Where the union is written. */
export const CLIENT_ERROR_CODES_FILE = 'packages/client/src/error-codes.ts';

/** The file's text: one string literal per catalogue code, in catalogue order. */
export function renderClientErrorCodes(): string {
  const members = Object.keys(ERROR_CODES).map((code) => `  | '${code}'`);
  return [
    '/**',
    ' * Every code the server answers in its error envelope (docs/errors.md in the Rowbase repository).',
    ' * Generated from src/errors/codes.ts by `npm run docs:errors`; do not edit by hand.',
    ' */',
    'export type ErrorCode =',
    `${members.join('\n')};`,
    '',
  ].join('\n');
}

if (process.argv[1]?.endsWith('gen-client-error-codes.ts')) {
  writeFileSync(CLIENT_ERROR_CODES_FILE, renderClientErrorCodes());
  process.stdout.write(`updated ${CLIENT_ERROR_CODES_FILE}\n`);
}
