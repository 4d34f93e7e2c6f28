import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLIENT_ERROR_CODES_FILE, renderClientErrorCodes } from '../../../scripts/gen-client-error-codes.js';

describe('the SDK error code union', () => {
  it('packages/client/src/error-codes.ts lists every catalogue code (npm run docs:errors after a change)', () => {
    assert.equal(readFileSync(CLIENT_ERROR_CODES_FILE, 'utf8'), renderClientErrorCodes());
  });
});
