/**
 * When a bound identity ends without an event in the log (docs/realtime.md "Identity"): its
 * access token expired, or the key or JWT secret it came from was rotated out. One per feed,
 * on the injected clock; the hub hands it the project's current state.
 */
import type { Clock } from '../lib/clock.js';
import type { ProjectState } from '../projects/project-registry.js';
import type { BoundIdentity } from './realtime-client.js';

/** What expiry needs of a client (a `RealtimeClient`). */
export interface ExpiringClient {
  readonly identity: BoundIdentity | undefined;
  /** Sends `auth_expired` and forgets the identity. */
  expire(): void;
  /** Ends the stream. */
  close(): void;
}

/** The project state a feed's identities were last checked against. */
export class IdentityExpiry {
  private state: ProjectState | undefined;

  constructor(private readonly clock: Clock) {}

  /**
   * Ends identities whose credential the project `state` no longer accepts, and (with `force`,
   * the poll) those whose token expired. A deleted project (`state` undefined) ends every stream.
   * Without `force` and with the same state as last time, nothing is checked: token expiry
   * alone is checked by each delivery and by the poll, not per batch of events.
   */
  check(clients: Iterable<ExpiringClient>, state: ProjectState | undefined, force: boolean): void {
    if (!state) {
      for (const client of [...clients]) client.close();
      return;
    }
    // A key in its grace period ends by time alone: recheck while one exists.
    const changed = state !== this.state || (force && state.keys.some((key) => key.expires_at !== null));
    this.state = state;
    if (!changed && !force) return;
    const now = this.clock.now();
    for (const client of clients) {
      const identity = client.identity;
      if (!identity) continue;
      if (
        (identity.expiresAtMs !== undefined && now >= identity.expiresAtMs) ||
        (changed && !identity.stillValid(state))
      )
        client.expire();
    }
  }
}
