/** Timestamps: the one parser of ISO 8601 input into the stored form (UTC, milliseconds, `Z`). */

/**
 * The ISO 8601 forms `normaliseTimestamp` reads, as regular-expression source (ECMA and JSON
 * Schema `pattern` alike): a date, optionally a time (seconds and up to 9 fraction digits
 * optional) and a zone. The letters are spelled in both cases rather than with a flag, so
 * the OpenAPI document can state exactly this pattern; only the calendar and clock ranges
 * (no February 30th, no hour 25) are checked beyond it.
 */
export const ISO_TIMESTAMP_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})(?:[Tt ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:?\\d{2})?)?$';

const ISO_DATE = new RegExp(ISO_TIMESTAMP_PATTERN);
/** `YYYY-MM-DDTHH:mm:ss.sssZ`: `d` a digit, anything else itself. */
const CANONICAL_FORM = 'dddd-dd-ddTdd:dd:dd.dddZ';
const DIGIT = 'd'.charCodeAt(0);
const ZERO = '0'.charCodeAt(0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by the digits of `text` from `start` to before `end`. */
function digits(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) n = n * 10 + text.charCodeAt(i) - ZERO;
  return n;
}

/**
 * True when `text` is a real date and time written as `normaliseTimestamp` would write it, so
 * it would come back unchanged. Years before 1000 are left to the full parser (Date.UTC reads
 * years below 100 as 19xx, which decides their February 29th).
 */
function isCanonical(text: string): boolean {
  if (text.length !== CANONICAL_FORM.length || text.charCodeAt(0) === ZERO) return false;
  for (let i = 0; i < CANONICAL_FORM.length; i++) {
    const code = text.charCodeAt(i);
    const expected = CANONICAL_FORM.charCodeAt(i);
    if (expected === DIGIT ? code < ZERO || code > ZERO + 9 : code !== expected) return false;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day <= days && digits(text, 11, 13) < 24 && digits(text, 14, 16) < 60 && digits(text, 17, 19) < 60;
}

/**
 * Parses an ISO 8601 date or date-time into the canonical `YYYY-MM-DDTHH:mm:ss.sssZ` form,
 * or returns undefined. A time without a zone is read as UTC so that results never depend
 * on the server's time zone; impossible dates (February 30th) are refused rather than rolled.
 */
export function normaliseTimestamp(text: string): string | undefined {
  // Already canonical (what every answer sends back, so what clients mostly send): a bulk of
  // 1,000 rows parses each timestamp twice (schema format, then the value), and the regular
  // expression and Date were most of that.
  if (isCanonical(text)) return text;
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, , , zone] = match;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return undefined;
  const withZone = hour !== undefined && zone === undefined ? `${text}Z` : text;
  const date = new Date(withZone.replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return undefined;
  // An offset can carry 0000-01-01 or 9999-12-31 past the four-digit years (`-000001-...`):
  // no longer the form every answer promises (OpenAPI `date-time`), so it is refused.
  const iso = date.toISOString();
  return iso.length === CANONICAL_FORM.length ? iso : undefined;
}
