/**
 * The signed-in session: a dashboard token (never the key it was exchanged for, contract §12),
 * its scope and expiry, kept in sessionStorage only (gone when the tab closes; never in
 * localStorage, a cookie or a URL). When the server refuses the token (expired, signed out,
 * its key rotated out), `endSession` tells the app, which returns to sign-in with a message.
 */
export type Session =
  | { kind: 'platform'; token: string; expiresAt: string }
  | { kind: 'project'; projectId: string; token: string; expiresAt: string };

const STORAGE_KEY = 'rowbase.dashboard.session';

/** The stored session, or null when signed out, expired, or the stored value is unreadable. */
export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Session;
    if (typeof value.token !== 'string' || typeof value.expiresAt !== 'string') return null;
    // An ended token would only be refused: start at sign-in, saying why.
    if (Date.parse(value.expiresAt) <= Date.now()) {
      clearSession();
      endedMessage = EXPIRED;
      return null;
    }
    if (value.kind === 'platform') return value;
    if (value.kind === 'project' && typeof value.projectId === 'string') return value;
  } catch {
    // fall through: treat as signed out
  }
  return null;
}

/** Stores the session for this tab. */
export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

/** Forgets this tab's session: only the dashboard's own entry, not what other code keeps there. */
export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

const EXPIRED = 'Your dashboard session has ended (sessions last 12 hours). Sign in again.';

let endedMessage: string | null = null;
let onEnded: ((message: string) => void) | null = null;

/** Lets the app hear that the server refused the token; returns the function that stops listening. */
export function listenForSessionEnd(listener: (message: string) => void): () => void {
  onEnded = listener;
  return () => {
    if (onEnded === listener) onEnded = null;
  };
}

/** The server refused the token: forget it and tell the app why (shown on the sign-in form). */
export function endSession(expired: boolean): void {
  clearSession();
  endedMessage = expired
    ? EXPIRED
    : 'Your dashboard session is no longer valid (signed out elsewhere, or its key was rotated). Sign in again.';
  onEnded?.(endedMessage);
}

/** Why the last session ended, once (the sign-in form shows it); null when signed out by hand. */
export function takeEndedMessage(): string | null {
  const message = endedMessage;
  endedMessage = null;
  return message;
}
