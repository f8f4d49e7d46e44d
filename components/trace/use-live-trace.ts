'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { isUnfinished } from '@/lib/ui/live-trace';
import type { TraceJson } from '@/lib/ui/trace-from-json';
import { type LiveConnection, useTraceEvents } from '../use-trace-events';

/** Events closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 250;
/** While the event stream is down, a running call is polled this often. */
const POLL_MS = 2_000;

async function fetchTrace(id: string): Promise<TraceJson> {
  const response = await fetch(`/api/v1/traces/${encodeURIComponent(id)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`trace ${id}: HTTP ${response.status}`);
  return (await response.json()) as TraceJson;
}

export interface LiveTrace {
  json: TraceJson;
  unfinished: boolean;
  connection: LiveConnection;
  refetch: () => void;
  /** Replaces the held snapshot (a cancel answers with the trace). */
  setJson: (json: TraceJson) => void;
}

/**
 * One trace, live while it runs: TanStack Query holds the server's snapshot and refetches
 * `GET /api/v1/traces/:id` on this trace's events (throttled), each time the stream (re)opens, and
 * by polling while the stream is down. A finished trace opens no stream.
 */
export function useLiveTrace(initial: TraceJson): LiveTrace {
  const id = initial.id;
  // server_time: each server render starts from its own fresh snapshot, never an older cached one.
  const serverTime = initial.server_time;
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['trace', id, serverTime],
    queryFn: () => fetchTrace(id),
    initialData: initial,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: isUnfinished(initial.status),
  });
  const json = query.data;
  const unfinished = isUnfinished(json.status) && json.imported !== true;
  const { refetch: queryRefetch } = query;
  const refetch = useCallback(() => void queryRefetch(), [queryRefetch]);

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onEvent = useCallback(() => {
    if (throttle.current) return;
    throttle.current = setTimeout(() => {
      throttle.current = null;
      refetch();
    }, REFETCH_THROTTLE_MS);
  }, [refetch]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );
  const connection = useTraceEvents(onEvent, { enabled: unfinished, trace: id });
  // The call may have moved on between the server render and the stream opening: catch up once live.
  const streamLive = connection.state === 'live';
  useEffect(() => {
    if (streamLive) refetch();
  }, [streamLive, refetch]);
  const polling = unfinished && !streamLive;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(refetch, POLL_MS);
    return () => clearInterval(timer);
  }, [polling, refetch]);

  const setJson = useCallback(
    (next: TraceJson) => queryClient.setQueryData(['trace', id, serverTime], next),
    [queryClient, id, serverTime],
  );
  return { json, unfinished, connection, refetch, setJson };
}
