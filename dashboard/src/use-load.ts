/** A hook that loads data on mount and when `deps` change, with a reload function. */
import { useCallback, useEffect, useState } from 'preact/hooks';

/** What useLoad returns: the last answer, the last error, and whether a newer answer is awaited. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** True from the render where `deps` change (or reload is called) until the answer is in. */
  loading: boolean;
  reload: () => void;
}

/** Runs `load` and keeps its result or error; a stale answer (deps changed meanwhile) is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [tick, setTick] = useState(0);
  const key = JSON.stringify([...deps, tick]);
  const [state, setState] = useState<{ data: T | undefined; error: unknown; key: string | null }>({
    data: undefined,
    error: null,
    key: null,
  });
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data, error: null, key }),
      (error) => current && setState((s) => ({ data: s.data, error, key })),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.key !== key, reload };
}
