import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../../src/errors/codes.js';
import { BEGIN, END, renderErrorTable } from '../../../scripts/gen-errors-doc.js';

describe('docs/errors.md', () => {
  const page = readFileSync('docs/errors.md', 'utf8');

  it('holds the table generated from the catalogue (run npm run docs:errors after changing codes)', () => {
    const table = page.slice(page.indexOf(BEGIN), page.indexOf(END) + END.length);
    assert.equal(table, renderErrorTable());
  });

  it('every catalogue entry is UPPER_SNAKE_CASE with a 4xx/5xx status and non-empty texts', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, code);
      assert.ok(spec.status >= 400 && spec.status <= 599, code);
      assert.ok(spec.message.length > 0 && spec.suggestion.length > 0, code);
    }
  });
});
