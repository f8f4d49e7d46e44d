import type { Metadata } from 'next';
import { type ToolInfo, ToolsOverview } from '@/components/tools/tools-overview';
import { allStatsJson, DEFAULT_RANGE, parseRange } from '@/lib/api/stats';
import { getToolscope } from '@/lib/server/toolscope';
import { describePolicy, describeRetry } from '@/lib/ui/tool-info';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Tools' };

/** Every registered tool with its settings, and calls, errors and latency over a range (live). */
export default async function ToolsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const asked = (await searchParams).range;
  const range = parseRange(typeof asked === 'string' ? asked : undefined) ?? DEFAULT_RANGE;
  const ts = getToolscope();
  const tools = ts.executor.registry
    .list()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((tool): ToolInfo => {
      const policy = describePolicy(ts.toolPolicy, tool);
      return {
        name: tool.name,
        description: tool.description,
        sideEffect: tool.sideEffect,
        policy: policy.policy,
        policyText: policy.text,
        timeoutMs: tool.timeoutMs,
        retryText: describeRetry(tool.retry),
      };
    });
  const now = Date.now();
  return <ToolsOverview key={range} tools={tools} initialStats={allStatsJson(ts, range, now)} renderedAt={now} />;
}
