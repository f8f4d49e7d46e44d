'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { TraceEvent } from '@/lib/events';
import type { ToolsChangedEvent } from '@/lib/ui/event-stream-connection';
import { useTraceEvents } from '../use-trace-events';

/** Events closer together than this cause one refetch: a burst of calls is one read. */
const REFETCH_THROTTLE_MS = 1000;
/** The range slides with the clock even without calls, and the event stream may be down. */
const REFETCH_INTERVAL_MS = 30_000;

/**
 * Live data of a stats endpoint: TanStack Query starts from what the server rendered, refetches
 * when trace events arrive (throttled) and every 30 s. `tool` narrows the events to one tool.
 * @example useLiveStats({ url: '/api/v1/stats?range=day', key: ['stats', 'day'], initialData, renderedAt })
 */
export function useLiveStats<T>({
  url,
  queryKey,
  initialData,
  renderedAt,
  tool,
  refetchOn = (event) => event.type === 'finish',
  parse = (body) => body as T,
  onTools,
  onReconnect,
}: {
  url: string;
  queryKey: readonly unknown[];
  initialData: T;
  renderedAt: number;
  tool?: string;
  /** Which trace events change the data; by default a call finishing. */
  refetchOn?: (event: TraceEvent) => boolean;
  /** Turns the response body into the data; by default it is the data. */
  parse?: (body: unknown) => T;
  /** `event: tools` (the registered tools changed), heard on the same stream. */
  onTools?: (event: ToolsChangedEvent) => void;
  /** The stream came back after a drop: refetch what may have been missed (the stats are refetched). */
  onReconnect?: () => void;
}): T {
  const query = useQuery({
    // renderedAt: a new server render (range switch, playground run) starts from its own data.
    queryKey: [...queryKey, renderedAt],
    queryFn: async (): Promise<T> => {
      const response = await fetch(url, { cache: 'no-store' });
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return parse(await response.json());
    },
    initialData,
    initialDataUpdatedAt: renderedAt,
    staleTime: Number.POSITIVE_INFINITY,
    refetchInterval: REFETCH_INTERVAL_MS,
  });

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refetch = query.refetch;
  useTraceEvents(
    (event) => {
      if (!refetchOn(event) || throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        void refetch();
      }, REFETCH_THROTTLE_MS);
    },
    {
      tool,
      onTools,
      onReconnect: () => {
        void refetch();
        onReconnect?.();
      },
    },
  );
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );
  return query.data ?? initialData;
}
