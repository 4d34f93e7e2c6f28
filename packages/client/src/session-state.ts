/**
 * The client's current session: read from the store at start, written back on every change,
 * announced to `onChange` listeners, and followed when another tab changes the store.
 */
import type { SessionStore } from './session-store.js';
import type { Session, SessionEvent } from './types.js';

/** A listener of session changes: the new session (null when signed out) and why it changed. */
export type SessionListener<U> = (session: Session<U> | null, event: SessionEvent) => void;

/** Holds the session of one client. */
export class SessionState<U> {
  private current: Session<U> | null;
  private readonly listeners = new Set<SessionListener<U>>();

  constructor(private readonly store: SessionStore) {
    this.current = store.load() as Session<U> | null;
    store.subscribe?.((session) => {
      const next = session as Session<U> | null;
      const event: SessionEvent =
        next === null ? 'SIGNED_OUT' : this.current === null ? 'SIGNED_IN' : 'TOKEN_REFRESHED';
      this.current = next;
      this.emit(event);
    });
  }

  /** The current session, or null when signed out. */
  get session(): Session<U> | null {
    return this.current;
  }

  /** Replaces the session, saves it and tells the listeners. */
  set(session: Session<U> | null, event: SessionEvent): void {
    this.current = session;
    this.store.save(session);
    this.emit(event);
  }

  /** Adds a listener; returns the function that removes it. */
  onChange(listener: SessionListener<U>): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private emit(event: SessionEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(this.current, event);
      } catch (error) {
        // A listener's bug must not fail the sign-in that triggered it
        // nor silence the other listeners; it is logged, not hidden.
        console.error('@rowbase/client: a session listener threw', error);
      }
    }
  }
}

/**
 * Builds a session from an access token: `expiresAt` is the token's lifetime (`exp - iat`)
 * counted from `now`, so a client whose clock differs from the server's still refreshes in time.
 */
export function sessionFromToken<U>(token: string, refreshToken: string, user: U | null, now: number): Session<U> {
  const claims = decodeClaims(token);
  const lifetime =
    claims && typeof claims.exp === 'number' && typeof claims.iat === 'number'
      ? (claims.exp - claims.iat) * 1000
      : null;
  return { token, refreshToken, user, expiresAt: lifetime === null ? null : now + lifetime };
}

/** The payload of a JWT, or null when it cannot be read (the server still checks it). */
function decodeClaims(token: string): { exp?: unknown; iat?: unknown } | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='))) as {
      exp?: unknown;
      iat?: unknown;
    };
  } catch {
    return null;
  }
}
