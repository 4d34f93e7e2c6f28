import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseTimestamp } from '../../../src/lib/timestamps.js';

test('a canonical timestamp is kept as sent', () => {
  assert.equal(normaliseTimestamp('2026-11-27T13:22:30.123Z'), '2026-11-27T13:22:30.123Z');
  assert.equal(normaliseTimestamp('2024-02-29T00:00:00.000Z'), '2024-02-29T00:00:00.000Z');
});

test('timestamps of the canonical length that are not real dates are refused or normalised as before', () => {
  // Dates JavaScript would roll over (February 30th) are refused, not moved to March.
  assert.equal(normaliseTimestamp('2026-02-30T00:00:00.000Z'), undefined);
  assert.equal(normaliseTimestamp('2026-13-01T00:00:00.000Z'), undefined);
  assert.equal(normaliseTimestamp('2100-02-29T00:00:00.000Z'), undefined);
  assert.equal(normaliseTimestamp('2000-02-29T23:59:59.999Z'), '2000-02-29T23:59:59.999Z');
  assert.equal(normaliseTimestamp('2026-04-31T00:00:00.000Z'), undefined);
  assert.equal(normaliseTimestamp('2026-01-01T00:60:00.000Z'), undefined);
  // Years below 100 are read as 19xx for the calendar check: 1900 had no February 29th.
  assert.equal(normaliseTimestamp('0000-02-29T00:00:00.000Z'), undefined);
  assert.equal(normaliseTimestamp('0999-12-31T00:00:00.000Z'), '0999-12-31T00:00:00.000Z');
  // Hour 24 reads as the next midnight, lower-case letters as their upper-case forms.
  assert.equal(normaliseTimestamp('2026-02-28T24:00:00.000Z'), '2026-03-01T00:00:00.000Z');
  assert.equal(normaliseTimestamp('2026-02-28t10:00:00.000z'), '2026-02-28T10:00:00.000Z');
  assert.equal(normaliseTimestamp('2026-02-28 10:00:00.000Z'), '2026-02-28T10:00:00.000Z');
});

test('other ISO forms are normalised to UTC milliseconds', () => {
  assert.equal(normaliseTimestamp('2026-11-27'), '2026-11-27T00:00:00.000Z');
  assert.equal(normaliseTimestamp('2026-11-27T13:22:30+02:00'), '2026-11-27T11:22:30.000Z');
  assert.equal(normaliseTimestamp('2026-11-27T13:22:30.123456Z'), '2026-11-27T13:22:30.123Z');
  assert.equal(normaliseTimestamp('not a date'), undefined);
});

test('an offset that carries the time past the four-digit years is refused (no `-000001-...` answers)', () => {
  assert.equal(normaliseTimestamp('0000-01-01T00:30:00+01:00'), undefined);
  assert.equal(normaliseTimestamp('9999-12-31T23:30:00-01:00'), undefined);
  assert.equal(normaliseTimestamp('0000-01-01T01:30:00+01:00'), '0000-01-01T00:30:00.000Z');
  assert.equal(normaliseTimestamp('9999-12-31T22:30:00-01:00'), '9999-12-31T23:30:00.000Z');
});
