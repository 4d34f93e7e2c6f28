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

/**
 * Parses an ISO 8601 date or date-time into the canonical `YYYY-MM-DDTHH:mm:ss.sssZ` form,
 * or returns undefined. A time without a zone is read as UTC so that results never depend
 * on the server's time zone; impossible dates (February 30th) are refused rather than rolled.
 */
export function normaliseTimestamp(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, , , zone] = match;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return undefined;
  const withZone = hour !== undefined && zone === undefined ? `${text}Z` : text;
  const date = new Date(withZone.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
