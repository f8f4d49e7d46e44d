import { SERIES_RANGES, type Series, type SeriesRange } from '../db/sqlite-tool-series';
import type { CircuitState } from '../executor/circuit-breaker';
import type { Toolscope } from '../server/create-toolscope';

/** The range the pages and the API show when none is asked for. */
export const DEFAULT_RANGE: SeriesRange = 'day';

/** A chart point as the API sends it: snake_case, an ISO time, the error rate worked out. */
export interface PointJson {
  t: string;
  calls: number;
  failures: number;
  /** failures / calls, 0..1; null for a bucket without calls. */
  error_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

export type SummaryJson = Omit<PointJson, 't'>;

/** `GET /api/v1/tools/:name/stats` and the chart part of `GET /api/v1/stats`. */
export interface StatsJson {
  range: SeriesRange;
  bucket_ms: number;
  points: PointJson[];
  /** The whole range at once (latency percentiles from the merged histogram). */
  summary: SummaryJson;
}

/** One row of the tools catalog: a registered tool, or one only seen in the calls. */
export interface ToolRowJson extends SummaryJson {
  name: string;
  registered: boolean;
  circuit_state: CircuitState | null;
  /** ISO time of the tool's newest call start, whenever it was; null when never called. */
  last_called_at: string | null;
  /** Calls per bucket over the range, oldest first: the row's sparkline. */
  calls_per_bucket: number[];
}

/** `GET /api/v1/stats`: all tools together, and each tool's row for the catalog. */
export interface AllStatsJson extends StatsJson {
  tools: ToolRowJson[];
}

const rate = (failures: number, calls: number) => (calls === 0 ? null : failures / calls);

function summaryJson(s: { calls: number; failures: number; p50Ms: number | null; p95Ms: number | null }): SummaryJson {
  return {
    calls: s.calls,
    failures: s.failures,
    error_rate: rate(s.failures, s.calls),
    p50_ms: s.p50Ms,
    p95_ms: s.p95Ms,
  };
}

function seriesJson(series: Series): StatsJson {
  return {
    range: series.range,
    bucket_ms: series.bucketMs,
    points: series.points.map((p) => ({ t: new Date(p.t).toISOString(), ...summaryJson(p) })),
    summary: summaryJson(series.summary),
  };
}

/** Reads `?range=`: the default when absent, null when it is not one of the ranges. */
export function parseRange(value: string | null | undefined): SeriesRange | null {
  if (value === null || value === undefined || value === '') return DEFAULT_RANGE;
  return (SERIES_RANGES as readonly string[]).includes(value) ? (value as SeriesRange) : null;
}

/** True when `name` is registered or the store ever recorded a call of it. */
export function isKnownTool(ts: Toolscope, name: string): boolean {
  return name.length <= 256 && (ts.executor.registry.get(name) !== undefined || ts.series.hasSeen(name));
}

/** The body of `GET /api/v1/tools/:name/stats`; the tool page renders it first on the server. */
export function toolStatsJson(ts: Toolscope, name: string, range: SeriesRange, now = Date.now()): StatsJson {
  return seriesJson(ts.series.series({ tool: name, range, now }));
}

/**
 * The body of `GET /api/v1/stats`: the all-tools series, plus one row per registered tool and
 * per tool seen in the range, from one read of the aggregate.
 */
export function allStatsJson(ts: Toolscope, range: SeriesRange, now = Date.now()): AllStatsJson {
  const all = ts.series.series({ range, now });
  const byTool = new Map(ts.series.seriesByTool({ range, now }).tools.map((s) => [s.tool, s]));
  const names = new Set([...ts.executor.registry.list().map((t) => t.name), ...byTool.keys()]);
  const empty = all.points.map(() => 0);
  const lastCalled = ts.series.lastCalledAt();
  const tools = [...names].sort().map((name): ToolRowJson => {
    const tool = ts.executor.registry.get(name);
    const series = byTool.get(name);
    return {
      name,
      registered: tool !== undefined,
      circuit_state: tool && tool.circuitBreaker !== false ? ts.executor.circuitState(name) : null,
      ...summaryJson(series?.summary ?? { calls: 0, failures: 0, p50Ms: null, p95Ms: null }),
      last_called_at: lastCalled.has(name) ? new Date(lastCalled.get(name)!).toISOString() : null,
      calls_per_bucket: series ? series.points.map((p) => p.calls) : empty,
    };
  });
  return { ...seriesJson(all), tools };
}
