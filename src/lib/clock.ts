/** Clock port: code that needs the time takes one, so tests can move time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** The clock's time as an ISO 8601 UTC string with milliseconds (the stored timestamp format). */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
