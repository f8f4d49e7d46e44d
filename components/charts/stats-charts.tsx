'use client';

import type { StatsJson } from '@/lib/api/stats';
import { formatDuration } from '@/lib/ui/format';
import { useHydrated } from '../timestamp';
import { latencyScale } from './latency-scale';
import { RANGE_LABEL } from './range-switch';
import { formatChartTime } from './time-axis';
import { type ChartRow, TimeSeriesChart } from './time-series-chart';

// Colours as CSS variables set on the wrapper, one value per theme; the accent is the theme's own.
const PALETTE =
  '[--chart-failures:#c62828] dark:[--chart-failures:#ff7b72] [--chart-p95:#b45309] dark:[--chart-p95:#fbbf24]';

const percent = (rate: number) => `${Number((rate * 100).toFixed(rate < 0.1 && rate > 0 ? 1 : 0))}%`;
/** A bucket in words, as in "calls per minute". */
const BUCKET_NAME = { hour: 'minute', day: '15 min', week: 'hour' } as const;

const count = (n: number) => n.toLocaleString('en-US');

/** The point with the largest `value`, or null when all are null or zero. */
function peak<T>(rows: T[], value: (row: T) => number | null): T | null {
  let best: T | null = null;
  let bestValue = 0;
  for (const row of rows) {
    const v = value(row);
    if (v !== null && v > bestValue) {
      best = row;
      bestValue = v;
    }
  }
  return best;
}

/**
 * Calls (bars: succeeded and failed, stacked), error rate and p50/p95 latency over one range,
 * each chart with its text summary. `subject` names what is counted ("calculator", "all tools").
 */
export function StatsCharts({
  stats,
  subject,
  testIdPrefix,
}: {
  stats: StatsJson;
  subject: string;
  testIdPrefix: string;
}) {
  const local = useHydrated();
  const at = (t: string) => formatChartTime(Date.parse(t), stats.range, local);
  const when = RANGE_LABEL[stats.range].toLowerCase();
  const { summary, points } = stats;
  const rows: ChartRow[] = points.map((p) => ({
    t: Date.parse(p.t),
    ok: p.calls - p.failures,
    failures: p.failures,
    error_rate: p.error_rate,
    p50: p.p50_ms,
    p95: p.p95_ms,
  }));
  const bucket = BUCKET_NAME[stats.range];

  const busiest = peak(points, (p) => p.calls);
  const callsSummary =
    summary.calls === 0
      ? `No calls to ${subject} finished in the ${when}.`
      : `${count(summary.calls)} calls to ${subject} in the ${when}, ${count(summary.failures)} failed; busiest ${bucket} from ${at(busiest!.t)} with ${count(busiest!.calls)}.`;
  const worst = peak(points, (p) => p.error_rate);
  const errorSummary =
    summary.error_rate === null
      ? `No calls, so no error rate, in the ${when}.`
      : `Error rate ${percent(summary.error_rate)} over the ${when}${worst ? `; highest ${percent(worst.error_rate ?? 0)} from ${at(worst.t)} (${count(worst.failures)} of ${count(worst.calls)})` : ''}.`;
  const slowest = peak(points, (p) => p.p95_ms);
  const latencySummary =
    summary.p50_ms === null
      ? `No latencies recorded in the ${when}.`
      : `p50 ${formatDuration(summary.p50_ms)}, p95 ${formatDuration(summary.p95_ms)} over the ${when} (execution only, approval waits left out; estimated from a latency histogram)${slowest ? `; slowest p95 ${formatDuration(slowest.p95_ms)} from ${at(slowest.t)}` : ''}.`;

  const latencies = points.flatMap((p) => [p.p50_ms, p.p95_ms]).filter((v): v is number => v !== null && v > 0);
  const scale = latencyScale(Math.min(...latencies, 1), Math.max(...latencies, 10));

  return (
    <div className={`grid gap-3 md:grid-cols-2 lg:grid-cols-3 ${PALETTE}`}>
      <TimeSeriesChart
        testId={`${testIdPrefix}-calls`}
        title={`Calls per ${bucket}`}
        summary={callsSummary}
        range={stats.range}
        bucketMs={stats.bucket_ms}
        data={rows}
        series={[
          { key: 'ok', label: 'not failed', color: 'var(--accent)', kind: 'bar', stack: 'calls' },
          { key: 'failures', label: 'failed', color: 'var(--chart-failures)', kind: 'bar', stack: 'calls' },
        ]}
        formatValue={count}
      />
      <TimeSeriesChart
        testId={`${testIdPrefix}-errors`}
        title="Error rate"
        summary={errorSummary}
        range={stats.range}
        bucketMs={stats.bucket_ms}
        data={rows}
        series={[{ key: 'error_rate', label: 'failed / calls', color: 'var(--chart-failures)', kind: 'line' }]}
        formatValue={percent}
        yDomain={[0, 1]}
        yTicks={[0, 0.25, 0.5, 0.75, 1]}
      />
      <TimeSeriesChart
        testId={`${testIdPrefix}-latency`}
        title="Latency (log scale)"
        summary={latencySummary}
        range={stats.range}
        bucketMs={stats.bucket_ms}
        data={rows}
        series={[
          { key: 'p50', label: 'p50', color: 'var(--accent)', kind: 'line' },
          { key: 'p95', label: 'p95', color: 'var(--chart-p95)', kind: 'line', dashed: true },
        ]}
        formatValue={(v) => formatDuration(v)}
        yScale="log"
        yDomain={scale.domain}
        yTicks={scale.ticks}
      />
    </div>
  );
}
