import { useCallback, useEffect, useState } from 'preact/hooks';
import { plainError } from '../api-errors';

export interface Loaded<T> {
  data: T | null;
  /** The failure in plain words, or null. */
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** Calls load when deps change (and on reload()), keeping the last answer while the next one comes. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error) => current && setState((s) => ({ data: s.data, error: plainError(error), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}
