'use client';

import { useSyncExternalStore } from 'react';
import { formatDateTimeUtc, formatTimeLocal, formatTimeUtc } from '@/lib/ui/format';

const subscribe = () => () => {};

/** True once hydrated in the browser; false on the server and during hydration (no mismatch). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/**
 * A wall-clock time: UTC while rendered on the server, the browser's local time once hydrated.
 * `full` shows the date too.
 */
export function Timestamp({ ms, full = false }: { ms: number; full?: boolean }) {
  const hydrated = useHydrated();
  const iso = new Date(ms).toISOString();
  let text: string;
  if (!hydrated) text = full ? formatDateTimeUtc(ms) : formatTimeUtc(ms);
  else if (full) text = new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  else text = formatTimeLocal(ms);
  return (
    <time dateTime={iso} title={iso} className="tabular-nums">
      {text}
    </time>
  );
}
