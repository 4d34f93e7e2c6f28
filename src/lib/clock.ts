/** Clock port: code that needs the time takes one, so tests can move time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

// Requests ask for the time several times each; most land in a millisecond already formatted.
let lastMs = Number.NaN;
let lastIso = '';

/** The clock's time as an ISO 8601 UTC string with milliseconds (the stored timestamp format). */
export function isoNow(clock: Clock): string {
  const ms = clock.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
