'use client';

import type { StatsJson } from '@/lib/api/stats';
import { RANGE_LABEL, RangeSwitch } from '../charts/range-switch';
import { StatsCharts } from '../charts/stats-charts';
import { useLiveStats } from './use-live-stats';

/**
 * One tool's calls, error rate and p50/p95 latency over the chosen range, as charts with text
 * summaries. Rendered on the server, then refetched from `GET /api/v1/tools/:name/stats` when
 * a call of this tool finishes.
 */
export function ToolActivity({
  tool,
  initialStats,
  renderedAt,
}: {
  tool: string;
  initialStats: StatsJson;
  renderedAt: number;
}) {
  const range = initialStats.range;
  const stats = useLiveStats<StatsJson>({
    url: `/api/v1/tools/${encodeURIComponent(tool)}/stats?range=${range}`,
    queryKey: ['stats', tool, range],
    initialData: initialStats,
    renderedAt,
    tool,
  });
  return (
    <section aria-labelledby="activity-heading" className="flex flex-col gap-1.5" data-testid="tool-activity">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="activity-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
          Activity, {RANGE_LABEL[range].toLowerCase()}
        </h2>
        <span className="ml-auto">
          <RangeSwitch basePath={`/tools/${encodeURIComponent(tool)}`} range={range} />
        </span>
      </div>
      <StatsCharts stats={stats} subject={tool} testIdPrefix="tool-chart" />
    </section>
  );
}
