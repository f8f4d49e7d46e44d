'use client';

import { MutationCache, type Query, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { APPROVALS_KEY } from '@/lib/ui/approvals';
import { browserEventStream } from '@/lib/ui/browser-event-stream';
import { createLoginCheck, goToLogin, probeServer } from '@/lib/ui/server-reach';

/**
 * Whether a query's last fetch failed (or is being retried): after an outage it is refetched as
 * soon as the stream is back. The approval queue is left to `ApprovalsLive`, which holds its
 * refetch while a decision is in flight.
 */
function failedMeanwhile(query: Query): boolean {
  if (query.queryKey[0] === APPROVALS_KEY[0]) return false;
  return query.state.status === 'error' || query.state.fetchFailureCount > 0;
}

/**
 * Client-side providers: one TanStack Query client per browser tab.
 * - A failed query or mutation asks whether the server now wants a login (a 401: a key became
 *   required, the login was revoked); if so the page goes to `/login?next=<here>`.
 * - When the event stream comes back after a drop, every query that failed meanwhile is refetched
 *   at once, on every page (the views also refetch their own data on the stream's reconnect).
 */
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => {
    const check = createLoginCheck({ probe: () => probeServer(), onUnauthenticated: goToLogin, now: Date.now });
    const failed = () => void check.failed();
    return new QueryClient({
      queryCache: new QueryCache({ onError: failed }),
      mutationCache: new MutationCache({ onError: failed }),
      defaultOptions: { queries: { staleTime: 1_000, refetchOnWindowFocus: false } },
    });
  });
  useEffect(
    () =>
      browserEventStream().onReconnect(() => {
        void client.invalidateQueries({ predicate: failedMeanwhile });
      }),
    [client],
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
