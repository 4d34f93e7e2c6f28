/**
 * The signed-in key, kept in sessionStorage only (gone when the tab closes; never in
 * localStorage, a cookie or a URL).
 */
export type Session = { kind: 'platform'; key: string } | { kind: 'project'; projectId: string; key: string };

const STORAGE_KEY = 'rowbase.dashboard.session';

/** The stored session, or null when signed out (or the stored value is unreadable). */
export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Session;
    if (value.kind === 'platform' && typeof value.key === 'string') return value;
    if (value.kind === 'project' && typeof value.key === 'string' && typeof value.projectId === 'string') return value;
  } catch {
    // fall through: treat as signed out
  }
  return null;
}

/** Stores the session for this tab. */
export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

/** Signs out: forgets every key this tab held. */
export function clearSession(): void {
  sessionStorage.clear();
}
