'use client';

import Link from 'next/link';
import type { TraceSummary } from '@/lib/db/trace-store';
import { formatDuration } from '@/lib/ui/format';
import { type SummaryJson, summaryFromJson } from '@/lib/ui/summary-from-json';
import { StatusBadge } from '../status';
import { Timestamp } from '../timestamp';
import { useLiveStats } from './use-live-stats';

/**
 * The last calls of one tool, live: rendered on the server, then refetched from the traces API
 * whenever a call of the tool starts, changes or finishes.
 */
export function ToolRuns({
  tool,
  initialRuns,
  renderedAt,
}: {
  tool: string;
  initialRuns: TraceSummary[];
  renderedAt: number;
}) {
  const { items: runs } = useLiveStats<{ items: TraceSummary[] }>({
    url: `/api/v1/traces?tool=${encodeURIComponent(tool)}&limit=10`,
    queryKey: ['tool-runs', tool],
    initialData: { items: initialRuns },
    renderedAt,
    tool,
    refetchOn: () => true,
    parse: (body) => ({ items: (body as { items: SummaryJson[] }).items.map(summaryFromJson) }),
  });
  const th = 'px-2 py-1 font-medium';
  return (
    <section aria-labelledby="runs-heading" className="flex flex-col gap-1.5">
      <h2 id="runs-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        Last runs{' '}
        <Link
          href={`/?tool=${encodeURIComponent(tool)}`}
          className="normal-case tracking-normal text-accent hover:underline"
        >
          all calls →
        </Link>
      </h2>
      {runs.length === 0 ? (
        <p className="text-fg-muted">No calls yet. Run it from the playground above, or send one through the API.</p>
      ) : (
        <div className="overflow-x-auto rounded border border-line">
          <table className="w-full border-collapse text-left text-xs" data-testid="tool-runs">
            <caption className="sr-only">The last calls to {tool}</caption>
            <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
              <tr>
                <th scope="col" className={th}>
                  Time
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
                <th scope="col" className={`${th} text-right`}>
                  Latency
                </th>
                <th scope="col" className={th}>
                  Actor
                </th>
                <th scope="col" className={th}>
                  Tool call id
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id} className="border-t border-line" data-testid="tool-run" data-trace-id={run.id}>
                  <td className="px-2 py-1">
                    <Link href={`/traces/${run.id}`} className="text-accent hover:underline">
                      <Timestamp ms={run.createdAt} />
                    </Link>
                  </td>
                  <td className="px-2 py-1">
                    <span className="inline-flex items-center gap-1.5">
                      <StatusBadge status={run.status} />
                      {run.errorCode && <code className="font-mono text-[11px] text-fg-muted">{run.errorCode}</code>}
                    </span>
                  </td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatDuration(run.latencyMs)}</td>
                  <td className="px-2 py-1">{run.actor}</td>
                  <td className="px-2 py-1 font-mono text-fg-muted">{run.toolCallId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
