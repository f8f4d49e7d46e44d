'use client';

import Link from 'next/link';
import type { AllStatsJson, ToolRowJson } from '@/lib/api/stats';
import type { Policy, SideEffect } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';
import { RANGE_LABEL, RangeSwitch } from '../charts/range-switch';
import { Sparkline } from '../charts/sparkline';
import { StatsCharts } from '../charts/stats-charts';
import { Timestamp } from '../timestamp';
import { CircuitLabel, PolicyBadge, SideEffectLabel } from './policy-badge';
import { useLiveStats } from './use-live-stats';

/** What the catalog shows of a registered tool's settings: fixed while the server runs. */
export interface ToolInfo {
  name: string;
  description: string;
  sideEffect: SideEffect;
  policy: Policy;
  policyText: string;
  timeoutMs: number;
  retryText: string;
}

const errorRate = (row: ToolRowJson) =>
  row.error_rate === null ? '—' : `${Number((row.error_rate * 100).toFixed(1))}%`;

/**
 * The tools catalog: charts of all tools over the range, and each tool's settings with its
 * calls, error rate, p50/p95 and a sparkline over the same range. Live: rendered on the server,
 * then refetched from `GET /api/v1/stats` on trace events (see useLiveStats).
 */
export function ToolsOverview({
  tools,
  initialStats,
  renderedAt,
}: {
  tools: ToolInfo[];
  initialStats: AllStatsJson;
  renderedAt: number;
}) {
  const range = initialStats.range;
  const stats = useLiveStats<AllStatsJson>({
    url: `/api/v1/stats?range=${range}`,
    queryKey: ['stats', '*', range],
    initialData: initialStats,
    renderedAt,
  });
  const info = new Map(tools.map((t) => [t.name, t]));
  const when = RANGE_LABEL[range].toLowerCase();
  // Registered tools first (the catalog), then tools only seen in the calls of the range.
  const rows = [...stats.tools].sort(
    (a, b) => Number(b.registered) - Number(a.registered) || a.name.localeCompare(b.name),
  );
  const th = 'px-2 py-1.5 font-medium';

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1 className="text-base font-semibold">Tools</h1>
        <p className="text-xs text-fg-muted">
          {tools.length} registered · calls, error rate and p50/p95 over the {when} · live
        </p>
        <span className="ml-auto">
          <RangeSwitch basePath="/tools" range={range} />
        </span>
      </div>

      <section aria-labelledby="all-tools-heading" className="flex flex-col gap-1.5" data-testid="all-tools-charts">
        <h2 id="all-tools-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
          All tools, {when}
        </h2>
        <StatsCharts stats={stats} subject="all tools" testIdPrefix="all-chart" />
      </section>

      {/* relative: the sr-only texts inside are positioned absolutely, and must not widen the page. */}
      <div className="relative overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left" data-testid="tools-table">
          <caption className="sr-only">
            Tools with their settings and their calls over the {when}; tools not registered were seen in recorded calls
          </caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className={th}>
                Tool
              </th>
              <th scope="col" className={th}>
                Side effect
              </th>
              <th scope="col" className={th}>
                Policy
              </th>
              <th scope="col" className={`${th} text-right`}>
                Timeout
              </th>
              <th scope="col" className={th}>
                Retries
              </th>
              <th scope="col" className={`${th} text-right`}>
                Calls
              </th>
              <th scope="col" className={th}>
                <span className="sr-only">Calls over time</span>
              </th>
              <th scope="col" className={`${th} text-right`}>
                Error rate
              </th>
              <th scope="col" className={`${th} text-right`}>
                p50
              </th>
              <th scope="col" className={`${th} text-right`}>
                p95
              </th>
              <th scope="col" className={th}>
                Circuit
              </th>
              <th scope="col" className={th}>
                Last call
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const tool = info.get(row.name);
              return (
                <tr
                  key={row.name}
                  className="border-t border-line align-top hover:bg-subtle"
                  data-testid="tool-row"
                  data-tool={row.name}
                  data-registered={row.registered}
                >
                  <td className="max-w-md px-2 py-1.5">
                    <Link
                      href={`/tools/${encodeURIComponent(row.name)}?range=${range}`}
                      className="font-mono font-medium text-accent hover:underline"
                    >
                      {row.name}
                    </Link>
                    <p className="line-clamp-2 text-xs text-fg-muted">
                      {tool ? tool.description : 'Not registered: seen in recorded calls only.'}
                    </p>
                  </td>
                  <td className="px-2 py-1.5">{tool ? <SideEffectLabel effect={tool.sideEffect} /> : '—'}</td>
                  <td className="px-2 py-1.5">
                    {tool ? <PolicyBadge policy={tool.policy} text={tool.policyText} /> : '—'}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {tool ? formatDuration(tool.timeoutMs) : '—'}
                  </td>
                  <td className="px-2 py-1.5 text-xs">{tool?.retryText ?? '—'}</td>
                  <td className="px-2 py-1.5 text-right tabular-nums" data-testid="tool-calls">
                    {row.calls > 0 ? (
                      <Link href={`/?tool=${encodeURIComponent(row.name)}`} className="hover:underline">
                        {row.calls.toLocaleString('en-US')}
                      </Link>
                    ) : (
                      0
                    )}
                  </td>
                  <td className="px-2 py-1.5 align-middle">
                    <Sparkline
                      values={row.calls_per_bucket}
                      label={`${row.calls.toLocaleString('en-US')} calls to ${row.name} over the ${when}`}
                    />
                  </td>
                  <td className="px-2 py-1.5 text-right tabular-nums">{errorRate(row)}</td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {formatDuration(row.p50_ms)}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {formatDuration(row.p95_ms)}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-xs">
                    {row.registered ? (
                      <CircuitLabel state={row.circuit_state ?? 'closed'} enabled={row.circuit_state !== null} />
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-xs text-fg-muted">
                    {row.last_called_at ? <Timestamp ms={Date.parse(row.last_called_at)} /> : 'never'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {rows.length === 0 && <p className="p-6 text-center text-fg-muted">No tools are registered.</p>}
      </div>
    </div>
  );
}
