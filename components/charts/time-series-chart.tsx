'use client';

import type { ReactNode } from 'react';
import { Bar, CartesianGrid, ComposedChart, Line, Tooltip, XAxis, YAxis } from 'recharts';
import type { SeriesRange } from '@/lib/db/sqlite-tool-series';
import { useHydrated } from '../timestamp';
import { chartTicks, formatChartTick, formatChartTime } from './time-axis';

/** One drawn series: a key of the data rows, how it is drawn and named. */
export interface ChartSeries {
  key: string;
  label: string;
  /** A CSS colour; `var(--…)` so light and dark mode each get theirs. */
  color: string;
  kind: 'bar' | 'line';
  /** Bars with the same stack id are stacked. */
  stack?: string;
  /** Dashed lines tell two lines apart without relying on colour. */
  dashed?: boolean;
}

export type ChartRow = { t: number } & Record<string, number | null>;

export interface TimeSeriesChartProps {
  testId: string;
  title: string;
  /** The text summary: what a screen reader (and a glance) gets instead of the drawing. */
  summary: string;
  range: SeriesRange;
  bucketMs: number;
  data: ChartRow[];
  series: ChartSeries[];
  formatValue: (value: number) => string;
  yScale?: 'linear' | 'log';
  yDomain?: [number, number];
  yTicks?: number[];
  height?: number;
  /** Shown in the title row, e.g. the legend of a chart with several series. */
  aside?: ReactNode;
}

const axisStyle = { fontSize: 11, fill: 'var(--fg-muted)' };

/**
 * A time-series chart (recharts) inside a `<figure>` whose caption holds the title and a text
 * summary. The SVG is drawn once hydrated: recharts measures its container, and the axis shows
 * local times, which the server cannot know; the server renders the caption and a box of the
 * same height, so nothing moves. Colours are CSS variables, so the chart follows the theme.
 */
export function TimeSeriesChart(props: TimeSeriesChartProps) {
  const { testId, title, summary, range, bucketMs, data, series, formatValue, height = 160 } = props;
  const hydrated = useHydrated();
  const first = data[0]?.t ?? 0;
  const last = data.at(-1)?.t ?? 0;
  const ticks = hydrated ? chartTicks(first, last + bucketMs, range).filter((t) => t >= first && t <= last) : [];
  const titleId = `${testId}-title`;
  const summaryId = `${testId}-summary`;
  return (
    <figure
      className="flex min-w-0 flex-col gap-1 rounded border border-line p-2"
      data-testid={testId}
      data-range={range}
      data-points={data.length}
      aria-labelledby={titleId}
      aria-describedby={summaryId}
    >
      <figcaption className="flex flex-col gap-0.5">
        <span className="flex flex-wrap items-baseline justify-between gap-x-3">
          <span id={titleId} className="text-xs font-semibold">
            {title}
          </span>
          <span className="flex flex-wrap gap-x-3 text-[11px] text-fg-muted">
            {series.map((s) => (
              <span key={s.key} className="inline-flex items-center gap-1">
                <svg width="14" height="8" aria-hidden className="shrink-0">
                  {s.kind === 'bar' ? (
                    <rect x="3" y="0" width="8" height="8" fill={s.color} />
                  ) : (
                    <line
                      x1="0"
                      x2="14"
                      y1="4"
                      y2="4"
                      stroke={s.color}
                      strokeWidth="2"
                      strokeDasharray={s.dashed ? '4 2' : undefined}
                    />
                  )}
                </svg>
                {s.label}
              </span>
            ))}
          </span>
        </span>
        <span id={summaryId} className="text-[11px] text-fg-muted" data-testid={`${testId}-summary`}>
          {summary}
        </span>
      </figcaption>
      <div style={{ height }} className="w-full">
        {hydrated && (
          <ComposedChart
            responsive
            style={{ width: '100%', height }}
            data={data}
            // Room on the right for the last tick's label, which would be clipped at the edge.
            margin={{ top: 6, right: 18, bottom: 0, left: 0 }}
            // A week has 168 bars: a fixed pixel gap would leave them a pixel wide.
            barCategoryGap="8%"
            title={title}
            desc={summary}
          >
            <CartesianGrid stroke="var(--line)" strokeDasharray="2 3" vertical={false} />
            <XAxis
              dataKey="t"
              type="category"
              ticks={ticks}
              tickFormatter={(t: number) => formatChartTick(t, range)}
              tick={axisStyle}
              tickLine={false}
              axisLine={{ stroke: 'var(--line)' }}
              // Narrow charts drop ticks that would overlap rather than draw them over each other.
              interval="preserveStart"
              minTickGap={10}
            />
            <YAxis
              width={48}
              tick={axisStyle}
              tickLine={false}
              axisLine={false}
              allowDecimals={false}
              scale={props.yScale ?? 'linear'}
              domain={props.yDomain ?? [0, 'auto']}
              ticks={props.yTicks}
              tickFormatter={(v: number) => formatValue(v)}
              allowDataOverflow={props.yScale === 'log'}
            />
            <Tooltip
              isAnimationActive={false}
              cursor={{ fill: 'var(--bg-muted)', stroke: 'var(--line)' }}
              contentStyle={{
                background: 'var(--bg)',
                border: '1px solid var(--line)',
                borderRadius: 4,
                fontSize: 12,
                color: 'var(--fg)',
              }}
              labelStyle={{ color: 'var(--fg-muted)' }}
              labelFormatter={(t) =>
                `${formatChartTime(Number(t), range, true)} – ${formatChartTime(Number(t) + bucketMs, range, true)}`
              }
              formatter={(value, name) => [
                value === null || value === undefined ? '—' : formatValue(Number(value)),
                name,
              ]}
            />
            {series.map((s) =>
              s.kind === 'bar' ? (
                <Bar
                  key={s.key}
                  dataKey={s.key}
                  name={s.label}
                  stackId={s.stack}
                  fill={s.color}
                  isAnimationActive={false}
                />
              ) : (
                <Line
                  key={s.key}
                  dataKey={s.key}
                  name={s.label}
                  type="linear"
                  stroke={s.color}
                  strokeWidth={1.5}
                  strokeDasharray={s.dashed ? '5 3' : undefined}
                  dot={{ r: 2, fill: s.color, strokeWidth: 0 }}
                  activeDot={{ r: 3 }}
                  connectNulls={false}
                  isAnimationActive={false}
                />
              ),
            )}
          </ComposedChart>
        )}
      </div>
    </figure>
  );
}
