/**
 * How node-postgres turns PostgreSQL text output into JS values for Rowbase's pools: bigint
 * as a JS number and timestamptz as Rowbase's ISO form (UTC, milliseconds, `Z`). Passed to
 * each Pool as `types`, so the driver's global parsers stay untouched.
 */
import pg from 'pg';

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;

const TIMESTAMPTZ =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/;

/**
 * Parses PostgreSQL's ISO output of a timestamptz ("2024-01-31 09:30:00.123456+00",
 * "0001-01-01 00:00:00+00 BC", any session time zone) into `YYYY-MM-DDTHH:mm:ss.sssZ`.
 * Microseconds are cut to milliseconds (Rowbase stores milliseconds). Infinity stays as text.
 */
export function parseTimestamptz(text: string): string {
  // The usual form (session time zone UTC, a year of four digits, AD) is rewritten without a
  // regular expression or a Date: it is read for every timestamp of every row.
  if (
    text.length >= 22 &&
    text.length <= 29 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.endsWith('+00') &&
    (text.length === 22 || text.charCodeAt(19) === 46)
  ) {
    const digits = text.length === 22 ? '' : text.slice(20, -3);
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${digits}000`.slice(0, 3)}Z`;
  }
  const match = TIMESTAMPTZ.exec(text);
  if (!match) return text;
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os, bc] = match;
  const year = bc ? 1 - Number(y) : Number(y);
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000 + 1e-6) : 0;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0..99 as 1900..1999.
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), ms);
  const offsetSeconds = sign
    ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0))
    : 0;
  return new Date(date.getTime() - offsetSeconds * 1000).toISOString();
}

/**
 * Parses a bigint. Rowbase validates integers to ±(2^53−1); a larger value (only possible by
 * editing the database directly) is read as the nearest double, as SQLite's driver does.
 */
function parseInt8(text: string): number {
  return Number(text);
}

/** The `types` option for Rowbase's pools and clients. */
export const PG_TYPE_PARSERS = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseInt8;
    if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;
