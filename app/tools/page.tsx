import type { Metadata } from 'next';
import Link from 'next/link';
import { LiveRefresh } from '@/components/live-refresh';
import { Timestamp } from '@/components/timestamp';
import { CircuitLabel, PolicyBadge, SideEffectLabel } from '@/components/tools/policy-badge';
import { getToolscope } from '@/lib/server/toolscope';
import { formatDuration, formatPercent } from '@/lib/ui/format';
import { describePolicy, describeRetry } from '@/lib/ui/tool-info';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Tools' };

/** Every registered tool with its settings and live stats (refreshed on trace events). */
export default function ToolsPage() {
  const { executor, store, policyOf } = getToolscope();
  const stats = new Map(store.toolStats().map((s) => [s.tool, s]));
  const tools = executor.registry.list().sort((a, b) => a.name.localeCompare(b.name));
  const th = 'px-2 py-1.5 font-medium';
  return (
    <div className="flex flex-col gap-3">
      <LiveRefresh intervalMs={1500} />
      <div className="flex items-baseline gap-3">
        <h1 className="text-base font-semibold">Tools</h1>
        <p className="text-xs text-fg-muted">
          {tools.length} registered · calls and error rate over all time, p50/p95 over each tool’s last 1,000 calls ·
          live
        </p>
      </div>
      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left" data-testid="tools-table">
          <caption className="sr-only">Registered tools with their settings and call statistics</caption>
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
            {tools.map((tool) => {
              const s = stats.get(tool.name);
              const policy = describePolicy(policyOf, tool);
              return (
                <tr
                  key={tool.name}
                  className="border-t border-line align-top hover:bg-subtle"
                  data-testid="tool-row"
                  data-tool={tool.name}
                >
                  <td className="max-w-md px-2 py-1.5">
                    <Link
                      href={`/tools/${encodeURIComponent(tool.name)}`}
                      className="font-mono font-medium text-accent hover:underline"
                    >
                      {tool.name}
                    </Link>
                    <p className="line-clamp-2 text-xs text-fg-muted">{tool.description}</p>
                  </td>
                  <td className="px-2 py-1.5">
                    <SideEffectLabel effect={tool.sideEffect} />
                  </td>
                  <td className="px-2 py-1.5">
                    <PolicyBadge policy={policy.policy} text={policy.text} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {formatDuration(tool.timeoutMs)}
                  </td>
                  <td className="px-2 py-1.5 text-xs">{describeRetry(tool.retry)}</td>
                  <td className="px-2 py-1.5 text-right tabular-nums">
                    {s ? (
                      <Link href={`/?tool=${encodeURIComponent(tool.name)}`} className="hover:underline">
                        {s.calls.toLocaleString('en-US')}
                      </Link>
                    ) : (
                      0
                    )}
                  </td>
                  <td className="px-2 py-1.5 text-right tabular-nums">
                    {s ? formatPercent(s.failures, s.calls) : '—'}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {formatDuration(s?.p50LatencyMs)}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-right tabular-nums">
                    {formatDuration(s?.p95LatencyMs)}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-xs">
                    <CircuitLabel state={executor.circuitState(tool.name)} enabled={tool.circuitBreaker !== false} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 text-xs text-fg-muted">
                    {s?.lastCalledAt ? <Timestamp ms={s.lastCalledAt} /> : 'never'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {tools.length === 0 && <p className="p-6 text-center text-fg-muted">No tools are registered.</p>}
      </div>
    </div>
  );
}
