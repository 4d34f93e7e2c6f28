/**
 * Where the session lives between calls and page loads: a pluggable store with two
 * implementations, memory (the default) and the browser's localStorage.
 */
import type { Session } from './types.js';

/**
 * A place to keep the session. `load` is called once when the client is created; `save` on
 * every change (null on sign-out). `subscribe`, when present, reports changes made elsewhere
 * (another tab), so the client follows them.
 */
export interface SessionStore {
  load(): Session<unknown> | null;
  save(session: Session<unknown> | null): void;
  subscribe?(listener: (session: Session<unknown> | null) => void): () => void;
}

/** The part of the Web Storage API the localStorage store uses. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A store that keeps the session in memory only: it ends with the process or the page. */
export function memoryStore(): SessionStore {
  let current: Session<unknown> | null = null;
  return {
    load: () => current,
    save: (session) => {
      current = session;
    },
  };
}

/**
 * A store in `localStorage` under `key` (default `rowbase.session`), so a session survives a
 * reload; give each project its own key when one origin talks to several. Other tabs of the
 * same origin see sign-ins and sign-outs through the `storage` event. `storage` replaces
 * `globalThis.localStorage` (for tests or other Web Storage implementations). Throws a
 * TypeError at once when there is no localStorage.
 */
export function localStorageStore(key = 'rowbase.session', storage?: StorageLike): SessionStore {
  const target = storage ?? (globalThis as { localStorage?: StorageLike }).localStorage;
  if (!target)
    throw new TypeError('localStorageStore: there is no localStorage here (use memoryStore() outside a browser)');
  return {
    load: () => parseSession(target.getItem(key)),
    save: (session) => {
      if (session === null) target.removeItem(key);
      else target.setItem(key, JSON.stringify(session));
    },
    subscribe: (listener) => {
      const events = globalThis as {
        addEventListener?: typeof addEventListener;
        removeEventListener?: typeof removeEventListener;
      };
      if (typeof events.addEventListener !== 'function' || typeof events.removeEventListener !== 'function')
        return () => {};
      const onStorage = (event: Event) => {
        const change = event as StorageEvent;
        if (change.key === key || change.key === null) listener(parseSession(change.newValue));
      };
      events.addEventListener('storage', onStorage);
      return () => events.removeEventListener?.('storage', onStorage);
    },
  };
}

/** Reads a stored session; anything malformed counts as signed out rather than breaking the app. */
function parseSession(text: string | null): Session<unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Session<unknown>> | null;
    if (!value || typeof value.token !== 'string' || typeof value.refreshToken !== 'string') return null;
    return {
      token: value.token,
      refreshToken: value.refreshToken,
      expiresAt: typeof value.expiresAt === 'number' ? value.expiresAt : null,
      user: value.user ?? null,
    };
  } catch {
    return null;
  }
}
