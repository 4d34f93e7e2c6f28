/**
 * A hash router (`#/p/demo/tables/tasks`): the server serves one page at /_/ and needs no
 * fallback route. Route parts are decoded; no key ever appears in them.
 */
import { useEffect, useState } from 'preact/hooks';

/** The current route as decoded path segments (`#/p/demo` → ['p', 'demo']). */
export function useRoute(): string[] {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return parseHash(hash);
}

/** Splits a location hash into decoded segments. */
export function parseHash(hash: string): string[] {
  return hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part.length > 0)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

/** Builds a hash link from segments, each encoded. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

/** Navigates to a hash link. */
export function go(link: string): void {
  location.hash = link;
}
