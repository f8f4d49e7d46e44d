'use client';

import { useCallback, useRef, useState } from 'react';

/** The two fetches of an infinite query this hook orders (as `useInfiniteQuery` returns them). */
export interface InfiniteFetches {
  refetch(options: { cancelRefetch: boolean }): Promise<unknown>;
  fetchNextPage(options: { cancelRefetch: boolean }): Promise<unknown>;
}

/**
 * "Load more" and live refreshes of one infinite query, run one after the other.
 * TanStack's `refetch()` and `fetchNextPage()` each cancel a fetch in flight by default: a live
 * refresh arriving while the next page loads would drop that page (the list stays one page long),
 * and a click during a refresh would drop the refresh. Here each waits for the one before, and
 * refreshes asked for while one is still waiting to start are that one refresh.
 * @example const { refresh, loadMore, loadingMore } = useSerialFetches(useInfiniteQuery({ ... }));
 */
export function useSerialFetches(query: InfiniteFetches) {
  const latest = useRef(query);
  latest.current = query;
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const refreshWaiting = useRef(false);
  const loadingMoreRef = useRef(false);
  const [loadingMore, setLoadingMore] = useState(false);

  const enqueue = useCallback((task: () => Promise<unknown>) => {
    const run = chain.current.then(task).catch(() => undefined);
    chain.current = run;
    return run;
  }, []);

  /** Reads the loaded pages again, after whatever fetch is running or waiting. */
  const refresh = useCallback(() => {
    if (refreshWaiting.current) return;
    refreshWaiting.current = true;
    void enqueue(() => {
      refreshWaiting.current = false;
      return latest.current.refetch({ cancelRefetch: false });
    });
  }, [enqueue]);

  /** Appends the next page, after whatever fetch is running or waiting; a click while one loads is ignored. */
  const loadMore = useCallback(() => {
    if (loadingMoreRef.current) return;
    loadingMoreRef.current = true;
    setLoadingMore(true);
    void enqueue(() => latest.current.fetchNextPage({ cancelRefetch: false })).finally(() => {
      loadingMoreRef.current = false;
      setLoadingMore(false);
    });
  }, [enqueue]);

  return { refresh, loadMore, loadingMore };
}
