/**
 * The dashboard's one date format: `2026-11-27 14:05:09 UTC`. UTC, because the row form edits
 * timestamps in UTC and the server stores them so: a time read in the grid is the time typed
 * in the form. Fixed digits rather than the browser's locale, so every page reads alike.
 */

/** A Date as `YYYY-MM-DD HH:MM:SS UTC`. */
function utc(date: Date): string {
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)} UTC`;
}

/** Parses an ISO timestamp; undefined for anything else (a value typed into a text column, null…). */
function parse(value: unknown): Date | undefined {
  if (typeof value !== 'string' || value.length === 0) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** An ISO timestamp in the dashboard's format; a dash when empty; the value itself when it is not a date. */
export function formatDate(value: unknown): string {
  const date = parse(value);
  if (date) return utc(date);
  return typeof value === 'string' && value.length > 0 ? value : '—';
}

/** The time of day of `date` as `HH:MM UTC` (for "stops working at 14:05 UTC"). */
export function formatClock(date: Date): string {
  return `${date.toISOString().slice(11, 16)} UTC`;
}

/** A timestamp shown in the dashboard's format, its full ISO value in the tooltip. */
export function DateTime({ value }: { value: unknown }) {
  const date = parse(value);
  if (!date) return <>{formatDate(value)}</>;
  return (
    <time dateTime={value as string} title={value as string}>
      {utc(date)}
    </time>
  );
}
