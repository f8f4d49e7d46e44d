'use client';

import Link from 'next/link';
import type { AssistantMessageJson } from '@/lib/calls/assistant-message';
import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { StatusBadge } from '../status';
import { AssistantMessage } from '../trace/assistant-message';
import { VisibleText } from '../visible-text';
import { approvalWaitAt, latencyAt } from './live-figures';
import { groupByBatch, type SessionCallJson, type TimelineBatch } from './timeline-layout';

const th = 'px-2 py-1 font-medium';

/**
 * The session's calls in order, in runs of one batch (one request) each. Each batch opens with a
 * header row, with the batch's assistant message (what the model said it was doing) when its
 * request carried one — see `BatchHeaderRow`.
 */
export function SessionCalls({
  calls,
  origin,
  now,
  batches,
  messages,
  flagged,
  activeId,
  onActive,
}: {
  calls: readonly SessionCallJson[];
  origin: number;
  /** The view's clock: a running call's latency counts up to it. */
  now: number;
  batches: readonly TimelineBatch[];
  /** The assistant message of each batch that came with one, by batch id. */
  messages: Readonly<Record<string, AssistantMessageJson>>;
  flagged: ReadonlySet<string>;
  activeId: string | null;
  onActive: (id: string | null) => void;
}) {
  const numberOf = new Map(batches.map((batch) => [batch.id, batch.number]));
  const groups = groupByBatch(calls);
  return (
    <div className="overflow-x-auto rounded border border-line">
      <table className="w-full border-collapse text-left text-xs" data-testid="session-calls">
        <caption className="sr-only">The session's calls in order, grouped by batch (one request each).</caption>
        <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
          <tr>
            <th scope="col" className={`${th} w-10 text-right`}>
              #
            </th>
            <th scope="col" className={th}>
              Tool
            </th>
            <th scope="col" className={th}>
              Status
            </th>
            <th scope="col" className={`${th} text-right`}>
              Start
            </th>
            <th scope="col" className={`${th} text-right`}>
              Latency
            </th>
            <th scope="col" className={`${th} hidden text-right sm:table-cell`}>
              Attempts
            </th>
            <th scope="col" className={`${th} hidden md:table-cell`}>
              Arguments
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <BatchGroup
              key={`${group.batchId ?? 'single'}:${group.calls[0]?.id}`}
              batchId={group.batchId}
              number={group.batchId === null ? null : (numberOf.get(group.batchId) ?? null)}
              calls={group.calls}
              message={group.batchId === null ? null : (messages[group.batchId] ?? null)}
              origin={origin}
              now={now}
              flagged={flagged}
              activeId={activeId}
              onActive={onActive}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BatchGroup({
  batchId,
  number,
  calls,
  message,
  origin,
  now,
  flagged,
  activeId,
  onActive,
}: {
  batchId: string | null;
  number: number | null;
  calls: SessionCallJson[];
  message: AssistantMessageJson | null;
  origin: number;
  now: number;
  flagged: ReadonlySet<string>;
  activeId: string | null;
  onActive: (id: string | null) => void;
}) {
  return (
    <>
      {batchId !== null && <BatchHeaderRow batchId={batchId} number={number} count={calls.length} message={message} />}
      {calls.map((call) => (
        <tr
          key={call.id}
          data-testid="session-call"
          data-trace-id={call.id}
          aria-selected={activeId === call.id}
          onPointerEnter={() => onActive(call.id)}
          className="border-t border-line hover:bg-subtle aria-selected:bg-muted"
        >
          <td className="px-2 py-0.5 text-right font-mono tabular-nums text-fg-muted">{call.session_seq ?? '—'}</td>
          <td className="px-2 py-0.5 font-mono">
            <Link href={`/traces/${call.id}`} className="text-accent hover:underline" onFocus={() => onActive(call.id)}>
              <VisibleText text={call.tool} />
            </Link>
            {flagged.has(call.id) && (
              <span className="ml-1.5 rounded border border-fuchsia-400 px-1 font-sans text-[10px] text-fuchsia-700 dark:border-fuchsia-700 dark:text-fuchsia-300">
                repeated
              </span>
            )}
          </td>
          <td className="px-2 py-0.5">
            <StatusBadge status={call.status} />
          </td>
          <td className="whitespace-nowrap px-2 py-0.5 text-right tabular-nums text-fg-muted">
            +{formatDuration(Date.parse(call.started_at ?? '') - origin)}
          </td>
          <td className="whitespace-nowrap px-2 py-0.5 text-right tabular-nums" data-testid="session-call-latency">
            <CallLatency call={call} now={now} />
          </td>
          <td className="hidden px-2 py-0.5 text-right tabular-nums sm:table-cell">{call.attempts.length}</td>
          <td
            className="hidden max-w-[48ch] truncate px-2 py-0.5 font-mono text-fg-muted md:table-cell"
            title={escapeInvisible(call.arguments_preview ?? '')}
          >
            <VisibleText text={call.summary || call.arguments_preview || '—'} />
          </td>
        </tr>
      ))}
    </>
  );
}

/**
 * A call's latency, execution only (counting while it runs, still while it waits), with its wait
 * for approval beside it as its own figure.
 */
function CallLatency({ call, now }: { call: SessionCallJson; now: number }) {
  const wait = approvalWaitAt(call, now);
  const waiting = call.status === 'awaiting_approval';
  return (
    <>
      {wait !== null && (
        <span
          className="mr-1.5 text-[10px] text-amber-700 dark:text-amber-300"
          title={`${waiting ? 'Waiting' : 'Waited'} ${formatDuration(wait)} for approval (not counted in the latency)`}
        >
          {waiting ? 'waiting' : 'waited'} {formatDuration(wait)}
        </span>
      )}
      {waiting ? '—' : formatDuration(latencyAt(call, now))}
    </>
  );
}

/**
 * The header row of one batch (the calls of one request). The assistant message of the batch
 * (issue 10, "Why, beside what") goes in this row's cell, after the label: one per batch.
 */
export function BatchHeaderRow({
  batchId,
  number,
  count,
  message,
}: {
  batchId: string;
  number: number | null;
  count: number;
  message: AssistantMessageJson | null;
}) {
  return (
    <tr
      className="border-t border-line bg-sky-50/60 dark:bg-sky-950/30"
      data-testid="batch-header"
      data-batch-id={batchId}
    >
      <td colSpan={7} className="px-2 py-0.5 text-[11px] text-sky-800 dark:text-sky-300">
        <span className="font-medium">Batch {number ?? ''}</span> · {count} call{count === 1 ? '' : 's'} in one request
        {message && (
          <div className="mt-1 mb-0.5 max-w-4xl text-fg">
            <AssistantMessage message={message} />
          </div>
        )}
      </td>
    </tr>
  );
}
