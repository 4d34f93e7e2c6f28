/**
 * parseTimestamptz: PostgreSQL's text output of a timestamptz read as Rowbase's ISO form. The
 * usual UTC form takes a shortcut without a regular expression; every other form (another
 * session time zone, BC, five-digit years, infinity) the general path. Both must agree.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTimestamptz } from '../../../src/store/postgres/pg-types.js';

describe('parseTimestamptz', () => {
  it('reads the UTC form with 0 to 6 fraction digits, cutting to milliseconds', () => {
    const cases: [string, string][] = [
      ['2024-01-31 09:30:00+00', '2024-01-31T09:30:00.000Z'],
      ['2024-01-31 09:30:00.1+00', '2024-01-31T09:30:00.100Z'],
      ['2024-01-31 09:30:00.12+00', '2024-01-31T09:30:00.120Z'],
      ['2024-01-31 09:30:00.123+00', '2024-01-31T09:30:00.123Z'],
      ['2024-01-31 09:30:00.123456+00', '2024-01-31T09:30:00.123Z'],
      ['2024-01-31 23:59:59.999999+00', '2024-01-31T23:59:59.999Z'],
      ['0099-03-01 00:00:00+00', '0099-03-01T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) assert.equal(parseTimestamptz(text), iso, text);
  });

  it('reads any instant of years 1 to 9999 as PostgreSQL prints it in UTC (trailing fraction zeros dropped)', () => {
    const instant = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        const iso = new Date(ms).toISOString();
        const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
        const printed = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
        assert.equal(parseTimestamptz(printed), iso, printed);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads other offsets, BC years, five-digit years and infinity by the general path', () => {
    const cases: [string, string][] = [
      ['2024-01-31 09:30:00.5+02', '2024-01-31T07:30:00.500Z'],
      ['2024-01-31 09:30:00-07:30', '2024-01-31T17:00:00.000Z'],
      ['0001-01-01 00:00:00+00 BC', '0000-01-01T00:00:00.000Z'],
      ['12345-01-01 00:00:00+00', '+012345-01-01T00:00:00.000Z'],
      ['infinity', 'infinity'],
    ];
    for (const [text, iso] of cases) assert.equal(parseTimestamptz(text), iso, text);
  });
});
