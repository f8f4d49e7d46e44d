'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useSyncExternalStore } from 'react';
import type { TraceEvent } from '@/lib/events';
import { APPROVALS_KEY, type ApprovalQueue, DECIDE_KEY, fetchApprovals } from '@/lib/ui/approvals';
import { type LiveConnection, useTraceEvents } from '../use-trace-events';
import { notifyPendingCall, useNotificationSetting } from './approval-notifications';

/** Events closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 250;
/** While the event stream is down, the queue is polled this often. */
const POLL_MS = 5_000;

const ConnectionContext = createContext<LiveConnection>({ state: 'connecting', retryAt: null });

function subscribeVisibility(listener: () => void) {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

/** Whether this tab is shown (true on the server). */
function useTabVisible(): boolean {
  return useSyncExternalStore(
    subscribeVisibility,
    () => document.visibilityState === 'visible',
    () => true,
  );
}

/** The approval queue's event stream state (one stream per tab, opened by `ApprovalsLive`). */
export function useApprovalsConnection(): LiveConnection {
  return useContext(ConnectionContext);
}

/**
 * The approval queue, oldest first: one query shared by the nav badge, the page and the trace
 * page. `initial` (the server's snapshot) fills it when nothing is cached yet.
 */
export function useApprovalQueue(initial?: ApprovalQueue) {
  return useQuery<ApprovalQueue>({ queryKey: APPROVALS_KEY, queryFn: fetchApprovals, initialData: initial });
}

/**
 * Keeps the approval queue live on every page: one event stream per tab invalidates the queue's
 * query when a call starts waiting (an event with status `awaiting_approval`) or a call in the
 * queue changes (decided, expired, cancelled), throttled; and once more after each reconnect.
 * While the stream is down the queue is polled. New pending calls may raise a browser
 * notification (see `approval-notifications`). A hidden tab closes its stream (browsers allow
 * few connections per host, and every tab has this one) unless notifications are on, and
 * catches up when shown again.
 */
export function ApprovalsLive({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const invalidate = useCallback(() => {
    if (throttle.current) return;
    throttle.current = setTimeout(() => {
      throttle.current = null;
      // A decision in flight refetches the queue when it settles; a refetch now could bring the
      // call back (the server records the decision a moment later) and undo the optimistic update.
      if (queryClient.isMutating({ mutationKey: DECIDE_KEY }) > 0) return;
      void queryClient.invalidateQueries({ queryKey: APPROVALS_KEY });
    }, REFETCH_THROTTLE_MS);
  }, [queryClient]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );

  const onEvent = useCallback(
    (event: TraceEvent) => {
      if (event.type === 'progress') return;
      if (event.status === 'awaiting_approval') {
        const known = queryClient.getQueryData<ApprovalQueue>(APPROVALS_KEY);
        if (!known?.approvals.some((a) => a.trace_id === event.trace_id)) notifyPendingCall(event);
        invalidate();
        return;
      }
      const queue = queryClient.getQueryData<ApprovalQueue>(APPROVALS_KEY);
      if (queue?.approvals.some((a) => a.trace_id === event.trace_id)) invalidate();
    },
    [queryClient, invalidate],
  );
  const visible = useTabVisible();
  const [notifications] = useNotificationSetting();
  const enabled = visible || notifications === 'on';
  const connection = useTraceEvents(onEvent, { enabled, onReconnect: invalidate });
  const live = enabled && connection.state === 'live';
  useEffect(() => {
    if (live) invalidate();
  }, [live, invalidate]);
  useEffect(() => {
    if (live || !enabled) return;
    const timer = setInterval(invalidate, POLL_MS);
    return () => clearInterval(timer);
  }, [live, enabled, invalidate]);

  return <ConnectionContext.Provider value={connection}>{children}</ConnectionContext.Provider>;
}
