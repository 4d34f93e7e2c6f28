/** Timestamps: the one parser of ISO 8601 input into the stored form (UTC, milliseconds, `Z`). */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

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
