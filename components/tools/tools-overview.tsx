'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { loadToolCatalog } from '@/app/tools/actions';
import type { AllStatsJson, ToolRowJson } from '@/lib/api/stats';
import type { Policy, SideEffect } from '@/lib/executor/types';
import type { ShellSandboxJson } from '@/lib/tools/process-sandbox';
import { formatDuration } from '@/lib/ui/format';
import {
  fetchMcpServers,
  groupByServer,
  isDown,
  MCP_SERVERS_KEY,
  type McpServerJson,
  type McpToolRelabelJson,
  TOOLS_CATALOG_KEY,
} from '@/lib/ui/mcp-servers';
import { relabelsByTool, relabelText } from '@/lib/ui/tool-info';
import { RANGE_LABEL, RangeSwitch } from '../charts/range-switch';
import { Sparkline } from '../charts/sparkline';
import { StatsCharts } from '../charts/stats-charts';
import { Timestamp } from '../timestamp';
import { McpServers, McpStateBadge } from './mcp-servers';
import { CircuitLabel, PolicyBadge, SideEffectLabel } from './policy-badge';
import { SandboxNotice } from './sandbox-notice';
import { useLiveStats } from './use-live-stats';

/** What the catalog shows of a registered tool: its settings, and whether it can run now. */
export interface ToolInfo {
  name: string;
  description: string;
  sideEffect: SideEffect;
  policy: Policy;
  policyText: string;
  timeoutMs: number;
  retryText: string;
  /** False while the tool cannot run (its MCP server is down); calls then fail with UPSTREAM_UNAVAILABLE. */
  available: boolean;
  unavailableReason: string | null;
}

/** While a server is down, its state is polled this often too (retries and crashes change it between events). */
const DOWN_POLL_MS = 3_000;
const UP_POLL_MS = 30_000;

/** A registered tool the stats of the range do not list yet (registered since): no calls. */
function emptyRow(name: string, buckets: number): ToolRowJson {
  return {
    name,
    registered: true,
    circuit_state: 'closed',
    calls: 0,
    failures: 0,
    error_rate: null,
    p50_ms: null,
    p95_ms: null,
    last_called_at: null,
    calls_per_bucket: new Array(buckets).fill(0),
  };
}

const errorRate = (row: ToolRowJson) =>
  row.error_rate === null ? '—' : `${Number((row.error_rate * 100).toFixed(1))}%`;

/**
 * The tools catalog: the upstream MCP servers, charts of all tools over the range, and each tool's
 * settings with its calls, error rate, p50/p95 and a sparkline over the same range, grouped by the
 * MCP server it comes from (a down server's tools stay, marked unavailable with the reason). Live:
 * rendered on the server, then the stats refetched from `GET /api/v1/stats` on trace events (see
 * useLiveStats), the catalog and the servers (`GET /api/v1/mcp/servers`) on `event: tools`.
 */
export function ToolsOverview({
  tools: initialTools,
  initialStats,
  initialServers,
  sandbox,
  renderedAt,
}: {
  tools: ToolInfo[];
  initialStats: AllStatsJson;
  /** The upstream MCP servers as the page was rendered: shown at once, then kept live. */
  initialServers: McpServerJson[];
  /** What run_shell runs programs in (fixed at start). */
  sandbox: ShellSandboxJson;
  renderedAt: number;
}) {
  const range = initialStats.range;
  const client = useQueryClient();
  const catalog = useQuery({
    queryKey: [...TOOLS_CATALOG_KEY, renderedAt],
    queryFn: () => loadToolCatalog(),
    initialData: initialTools,
    initialDataUpdatedAt: renderedAt,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const servers = useQuery({
    queryKey: MCP_SERVERS_KEY,
    queryFn: fetchMcpServers,
    initialData: initialServers,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: (query) => (query.state.data?.some((server) => isDown(server.state)) ? DOWN_POLL_MS : UP_POLL_MS),
  });
  const toolsChanged = () => {
    void client.invalidateQueries({ queryKey: TOOLS_CATALOG_KEY });
    void client.invalidateQueries({ queryKey: MCP_SERVERS_KEY });
  };
  const stats = useLiveStats<AllStatsJson>({
    url: `/api/v1/stats?range=${range}`,
    queryKey: ['stats', '*', range],
    initialData: initialStats,
    renderedAt,
    onTools: () => {
      toolsChanged();
      void client.invalidateQueries({ queryKey: ['stats', '*', range] });
    },
    onReconnect: toolsChanged,
  });
  const tools = catalog.data;
  const serverList = servers.data ?? [];
  const serverByName = new Map(serverList.map((server) => [server.name, server]));
  const relabels = relabelsByTool(serverList);
  const info = new Map(tools.map((t) => [t.name, t]));
  const when = RANGE_LABEL[range].toLowerCase();
  const statRows = new Map(stats.tools.map((row) => [row.name, row]));
  const buckets = stats.points.length;
  // Registered tools (the catalog, live) grouped by server; then tools only seen in the calls of the range.
  const groups = groupByServer(
    tools.map((tool) => statRows.get(tool.name) ?? emptyRow(tool.name, buckets)),
    serverList.map((server) => server.name),
  );
  const seenOnly = stats.tools.filter((row) => !info.has(row.name)).sort((a, b) => a.name.localeCompare(b.name));
  const th = 'px-2 py-1.5 font-medium';
  const unavailable = tools.filter((tool) => !tool.available).length;

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1 className="text-base font-semibold">Tools</h1>
        <p className="text-xs text-fg-muted">
          {tools.length} registered{unavailable > 0 ? `, ${unavailable} unavailable` : ''} · calls, error rate and
          p50/p95 over the {when} · live
        </p>
        <span className="ml-auto">
          <RangeSwitch basePath="/tools" range={range} />
        </span>
      </div>

      <SandboxNotice sandbox={sandbox} />

      <McpServers servers={servers.data} error={servers.error} />

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
          {groups.map((group) =>
            group.server === null && serverList.length === 0 ? (
              <tbody key="tools">
                {group.tools.map((row) => (
                  <ToolRow key={row.name} row={row} tool={info.get(row.name)} range={range} when={when} />
                ))}
              </tbody>
            ) : (
              <tbody
                key={group.server ?? 'built-in'}
                data-testid="tool-group"
                data-server={group.server ?? ''}
                className="border-t-2 border-line"
              >
                <GroupHeader server={group.server === null ? null : serverByName.get(group.server)} />
                {group.tools.map((row) => (
                  <ToolRow
                    key={row.name}
                    row={row}
                    tool={info.get(row.name)}
                    relabel={relabels.get(row.name)}
                    range={range}
                    when={when}
                  />
                ))}
                {group.tools.length === 0 && (
                  <tr className="border-t border-line">
                    <td colSpan={COLUMNS} className="px-2 py-1.5 text-xs text-fg-muted">
                      No tools registered yet: they appear once the server has connected and listed them.
                    </td>
                  </tr>
                )}
              </tbody>
            ),
          )}
          {seenOnly.length > 0 && (
            <tbody data-testid="tool-group" data-server="" data-seen-only="true" className="border-t-2 border-line">
              <tr className="bg-subtle">
                <th scope="rowgroup" colSpan={COLUMNS} className="px-2 py-1 text-left text-xs font-medium">
                  Seen in recorded calls only <span className="font-normal text-fg-muted">· not registered</span>
                </th>
              </tr>
              {seenOnly.map((row) => (
                <ToolRow key={row.name} row={row} tool={undefined} range={range} when={when} />
              ))}
            </tbody>
          )}
        </table>
        {tools.length === 0 && seenOnly.length === 0 && (
          <p className="p-6 text-center text-fg-muted">No tools are registered.</p>
        )}
      </div>
    </div>
  );
}

const COLUMNS = 12;

/** The heading row of a group: built-in tools, or an MCP server's with its state. */
function GroupHeader({ server }: { server: McpServerJson | null | undefined }) {
  return (
    <tr className="bg-subtle">
      <th scope="rowgroup" colSpan={COLUMNS} className="px-2 py-1 text-left text-xs font-medium">
        {server ? (
          <span className="inline-flex flex-wrap items-center gap-2">
            <span>
              MCP server <span className="font-mono">{server.name}</span>
            </span>
            <McpStateBadge state={server.state} />
            {isDown(server.state) && server.tools.length > 0 && (
              <span className="font-normal text-amber-800 dark:text-amber-300">
                its tools are unavailable until it is back
              </span>
            )}
          </span>
        ) : (
          'Built-in tools'
        )}
      </th>
    </tr>
  );
}

/** One tool's row: settings (registered tools), a relabel by its MCP server, and its calls over the range. */
function ToolRow({
  row,
  tool,
  relabel,
  range,
  when,
}: {
  row: ToolRowJson;
  tool: ToolInfo | undefined;
  /** The server's last relabel of the tool since the start, if any. */
  relabel?: McpToolRelabelJson;
  range: string;
  when: string;
}) {
  return (
    <tr
      className="border-t border-line align-top hover:bg-subtle"
      data-testid="tool-row"
      data-tool={row.name}
      data-registered={row.registered}
      data-available={tool ? String(tool.available) : undefined}
    >
      <td className="max-w-md px-2 py-1.5">
        <Link
          href={`/tools/${encodeURIComponent(row.name)}?range=${range}`}
          className="font-mono font-medium text-accent hover:underline"
        >
          {row.name}
        </Link>
        {tool && !tool.available && (
          <span
            className="ml-1.5 whitespace-nowrap rounded border border-amber-300 px-1 text-[11px] text-amber-800 dark:border-amber-800 dark:text-amber-300"
            data-testid="tool-unavailable"
          >
            unavailable
          </span>
        )}
        {tool && !tool.available && tool.unavailableReason && (
          <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="tool-unavailable-reason">
            {tool.unavailableReason}
          </p>
        )}
        <p className="line-clamp-2 text-xs text-fg-muted">
          {tool ? tool.description : 'Not registered: seen in recorded calls only.'}
        </p>
      </td>
      <td className="px-2 py-1.5">
        {tool ? <SideEffectLabel effect={tool.sideEffect} /> : '—'}
        {relabel && (
          <p className="max-w-56 text-xs text-amber-800 dark:text-amber-300" data-testid="tool-relabelled">
            relabelled by its server at <Timestamp ms={Date.parse(relabel.at)} />: {relabelText(relabel)}
          </p>
        )}
      </td>
      <td className="px-2 py-1.5">{tool ? <PolicyBadge policy={tool.policy} text={tool.policyText} /> : '—'}</td>
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
      <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">{formatDuration(row.p50_ms)}</td>
      <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">{formatDuration(row.p95_ms)}</td>
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
}
