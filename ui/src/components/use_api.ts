/**
 * Loads a GET from the API for a component, again whenever `key` changes
 * (a window, a filter); an older answer that arrives late is dropped.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { get, type Query } from "../api.ts";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useApi<T>(
  path: string | undefined,
  query: Query = {},
): Loaded<T> {
  const key = path === undefined ? "" : `${path}?${JSON.stringify(query)}`;
  const [state, setState] = useState<Omit<Loaded<T>, "reload">>({
    data: undefined,
    error: undefined,
    loading: path !== undefined,
  });
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  useEffect(() => {
    if (path === undefined) return;
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    get<T>(path, query, abort.signal).then(
      (data) => setState({ data, error: undefined, loading: false }),
      (error) => {
        if (!abort.signal.aborted) {
          setState((s) => ({ ...s, error, loading: false }));
        }
      },
    );
    return () => abort.abort();
  }, [key, round]);
  return { ...state, reload };
}
