'use client';

import { type PointerEvent, useSyncExternalStore } from 'react';
import { formatClock, formatDateTime, formatRelative } from '@/lib/ui/format';
import { useTimeZone } from './time-zone-provider';

const subscribe = () => () => {};

/**
 * True once hydrated in the browser; false on the server and during hydration (no mismatch).
 * For what the browser alone can measure (a chart's width); times use `useTimeZone()` instead,
 * which the server knows too.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/** Sets the title at hover time: a relative time computed then never differs between server and browser. */
function showRelative(event: PointerEvent<HTMLTimeElement>, ms: number) {
  const iso = new Date(ms).toISOString();
  event.currentTarget.title = `${formatRelative(ms, Date.now())} · ${iso}`;
}

/**
 * A wall-clock time in the one zone the UI uses (the header's `UTC±hh`), rendered identically on
 * the server and in the browser. Row times show the date when not today; `full` always shows it.
 * Hovering shows how long ago it was and the exact UTC instant.
 */
export function Timestamp({ ms, full = false }: { ms: number; full?: boolean }) {
  const { zone, now } = useTimeZone();
  const iso = new Date(ms).toISOString();
  const text = full ? formatDateTime(ms, zone) : formatClock(ms, zone, now);
  return (
    <time dateTime={iso} title={iso} className="tabular-nums" onPointerEnter={(event) => showRelative(event, ms)}>
      {text}
    </time>
  );
}
