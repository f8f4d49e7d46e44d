'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { TriangleAlert, WifiOff } from 'lucide-react';
import { useEffect } from 'react';
import { browserEventStream } from '@/lib/ui/browser-event-stream';
import { fetchHealth, formatFreeSpace, HEALTH_KEY, type HealthJson, isUnreachable, needsBanner } from '@/lib/ui/health';
import { Timestamp } from '../timestamp';
import { RetryNowButton, useCountdown, useLiveIndicatorShown } from '../traces/live-indicator';
import { type LiveConnection, useLiveConnection } from '../use-trace-events';

/** How often the health is read while all is well. */
export const HEALTH_POLL_MS = 15_000;
/** …while degraded: the banner follows the queue and goes soon after recovery. */
export const HEALTH_POLL_DEGRADED_MS = 2_000;
/** …while the server does not answer (a reconnect of the event stream reads it at once too). */
export const HEALTH_POLL_UNREACHABLE_MS = 5_000;

/**
 * Reads `GET /api/v1/health` on every page (one query per tab), faster while degraded, and again
 * as soon as the event stream comes back from a drop.
 */
function useHealth() {
  const queryClient = useQueryClient();
  const query = useQuery<HealthJson>({
    queryKey: HEALTH_KEY,
    queryFn: fetchHealth,
    // A failed read is answered by the next poll, not by retries that would hold the old state.
    retry: false,
    refetchOnWindowFocus: true,
    refetchInterval: (q) =>
      q.state.status === 'error'
        ? HEALTH_POLL_UNREACHABLE_MS
        : q.state.data?.status === 'degraded'
          ? HEALTH_POLL_DEGRADED_MS
          : HEALTH_POLL_MS,
  });
  useEffect(
    () => browserEventStream().onReconnect(() => void queryClient.invalidateQueries({ queryKey: HEALTH_KEY })),
    [queryClient],
  );
  return query;
}

/**
 * While the event stream is down, on a page without a live indicator of its own (which says so
 * itself): that the page is not updated, when the next try is, and "Retry now".
 */
function StreamNotice({ connection }: { connection: LiveConnection }) {
  const seconds = useCountdown(connection.retryAt);
  return (
    <div
      className="mx-auto flex max-w-[1600px] flex-wrap items-center gap-x-2 gap-y-1 px-3 py-1.5 text-xs sm:px-4"
      data-testid="stream-notice"
    >
      <WifiOff size={14} aria-hidden className="shrink-0 text-red-600 dark:text-red-400" />
      <span className="font-medium text-red-700 dark:text-red-300">Disconnected from Toolscope:</span>
      <span>this page is not updated — reconnecting{seconds ? ` in ${seconds} s` : '…'}</span>
      <RetryNowButton />
    </div>
  );
}

/** `12 writes queued · last error … · 3.1 GiB free`, each part only when known. */
function StoreFacts({ store }: { store: HealthJson['store'] }) {
  const error = store.lastError;
  return (
    <>
      <span data-testid="health-queued" data-queued={store.queued} className="font-medium tabular-nums">
        {store.queued.toLocaleString('en-US')} {store.queued === 1 ? 'write' : 'writes'} queued
      </span>
      {error && (
        <span data-testid="health-last-error" className="min-w-0 break-words">
          {' · '}last error{' '}
          {error.at !== null && (
            <>
              at <Timestamp ms={error.at} />
            </>
          )}
          :{' '}
          <code className="font-mono text-[11px]">
            {error.code ? `${error.code}: ` : ''}
            {error.message}
          </code>
        </span>
      )}
      {store.diskFreeBytes !== null && (
        <span data-testid="health-disk-free" className="tabular-nums">
          {' · '}
          {formatFreeSpace(store.diskFreeBytes)} free on disk
        </span>
      )}
    </>
  );
}

const VAULT_HEADLINES: Record<string, string> = {
  missing: 'Vault key missing.',
  unusable: 'Vault key unusable.',
  mismatch: 'Vault key does not open some calls.',
};

/**
 * The banner under the header while something needs a person: the store cannot write (the writes
 * queued, the last error, free disk space, and that answered calls are kept until they can be
 * written), or the vault key is missing, unusable or not the one that sealed some calls (what the
 * server says to do). Gone once all is well.
 * When the event stream is down, a page without a live indicator of its own says so here, with
 * "Retry now" (`data-stream` holds the stream's state on every page); a health banner already
 * shown stays, marked as the last known state.
 */
export function HealthBanner() {
  const query = useHealth();
  const health = query.data;
  const unreachable = query.isError && isUnreachable(query.error);
  const shown = needsBanner(health);
  const connection = useLiveConnection();
  const indicatorShown = useLiveIndicatorShown();
  const streamNotice = connection.state === 'disconnected' && !indicatorShown;
  return (
    <div
      role="status"
      data-testid="health"
      data-status={health?.status ?? 'unknown'}
      data-vault={health?.vault?.status ?? 'ok'}
      data-unreachable={unreachable}
      data-stream={connection.state}
      className={
        shown
          ? 'border-b border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800/70 dark:bg-amber-950/40 dark:text-amber-100'
          : streamNotice
            ? 'border-b border-red-200 bg-red-50 dark:border-red-900/60 dark:bg-red-950/30'
            : undefined
      }
    >
      {streamNotice && <StreamNotice connection={connection} />}
      {shown && (
        <div
          className="mx-auto flex max-w-[1600px] items-start gap-2 px-3 py-1.5 text-xs sm:px-4"
          data-testid="health-banner"
        >
          <TriangleAlert size={14} aria-hidden className="mt-px shrink-0 text-amber-600 dark:text-amber-400" />
          <div className="flex min-w-0 flex-col gap-0.5">
            {health.store.status === 'degraded' ? (
              <>
                <p className="min-w-0">
                  <strong className="font-semibold">Store degraded: writes are failing.</strong>{' '}
                  <StoreFacts store={health.store} />
                </p>
                <p className="text-amber-900/80 dark:text-amber-200/80">
                  Calls already answered are kept and will be written when the store recovers. While the queue is full,
                  new calls are refused.
                </p>
              </>
            ) : (
              health.status === 'degraded' && <p className="font-semibold">Toolscope reports itself degraded.</p>
            )}
            {health.vault && (
              <p className="min-w-0 break-words" data-testid="health-vault">
                <strong className="font-semibold">
                  {VAULT_HEADLINES[health.vault.status] ?? `Vault key: ${health.vault.status}.`}
                </strong>
                {health.vault.message ? ` ${health.vault.message}` : ''}
              </p>
            )}
            {unreachable && (
              <p className="text-amber-900/80 dark:text-amber-200/80" data-testid="health-stale">
                Last known state, from <Timestamp ms={query.dataUpdatedAt} />: the server is not answering.
              </p>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
