import type { Metadata } from 'next';
import { ToolsOverview } from '@/components/tools/tools-overview';
import { mcpServerJson } from '@/lib/api/mcp-servers';
import { allStatsJson, DEFAULT_RANGE, parseRange } from '@/lib/api/stats';
import { getToolscope } from '@/lib/server/toolscope';
import { shellSandboxJson } from '@/lib/tools/process-sandbox';
import { toolCatalog } from './catalog';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Tools' };

/**
 * Every registered tool with its settings and availability, grouped by the MCP server it comes
 * from, the MCP servers' states, and calls, errors and latency over a range (live).
 */
export default async function ToolsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const asked = (await searchParams).range;
  const range = parseRange(typeof asked === 'string' ? asked : undefined) ?? DEFAULT_RANGE;
  const ts = getToolscope();
  const now = Date.now();
  return (
    <ToolsOverview
      key={range}
      tools={toolCatalog(ts)}
      initialStats={allStatsJson(ts, range, now)}
      initialServers={ts.upstream.list().map(mcpServerJson)}
      sandbox={shellSandboxJson(ts.shellSandbox)}
      renderedAt={now}
    />
  );
}
