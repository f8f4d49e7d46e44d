import { ArrowLeft } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { LiveRefresh } from '@/components/live-refresh';
import { StatusBadge } from '@/components/status';
import { Timestamp } from '@/components/timestamp';
import { Playground } from '@/components/tools/playground';
import { CircuitLabel, PolicyBadge, SideEffectLabel } from '@/components/tools/policy-badge';
import { SchemaTabs } from '@/components/tools/schema-tabs';
import { inputJsonSchema, toAnthropicTool, toOpenAITool } from '@/lib/executor/json-schema';
import { getToolscope } from '@/lib/server/toolscope';
import { formatDuration, formatPercent } from '@/lib/ui/format';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { describePolicy, describeRetry, policyNote } from '@/lib/ui/tool-info';
import { runTool } from './actions';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

/** One tool: its settings and stats, its definition as models get it, a playground and its last runs. */
export default async function ToolPage({ params }: Props) {
  const name = decodeURIComponent((await params).name);
  const { executor, store, policyOf } = getToolscope();
  const tool = executor.registry.get(name);
  if (!tool) notFound();
  const policy = describePolicy(policyOf, tool);
  const stats = store.toolStats().find((s) => s.tool === name);
  const runs = store.list({ tool: name, limit: 10 }).items;
  const dt = 'text-fg-muted';

  return (
    <div className="flex flex-col gap-5" data-testid="tool-page" data-tool={name}>
      <LiveRefresh tool={name} intervalMs={1000} />
      <header className="flex flex-col gap-1">
        <Link href="/tools" className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg">
          <ArrowLeft size={12} aria-hidden /> Tools
        </Link>
        <h1 className="font-mono text-lg font-semibold">{tool.name}</h1>
        <p className="max-w-3xl text-fg-muted">{tool.description}</p>
        <dl className="mt-1 grid grid-cols-2 gap-x-6 gap-y-1 text-xs sm:grid-cols-4 lg:grid-cols-8">
          <div>
            <dt className={dt}>Side effect</dt>
            <dd>
              <SideEffectLabel effect={tool.sideEffect} />
            </dd>
          </div>
          <div>
            <dt className={dt}>Policy</dt>
            <dd>
              <PolicyBadge policy={policy.policy} text={policy.text} />
            </dd>
          </div>
          <div>
            <dt className={dt}>Timeout</dt>
            <dd className="tabular-nums">{formatDuration(tool.timeoutMs)}</dd>
          </div>
          <div className="col-span-2">
            <dt className={dt}>Retries</dt>
            <dd>{describeRetry(tool.retry)}</dd>
          </div>
          <div>
            <dt className={dt}>Circuit breaker</dt>
            <dd>
              <CircuitLabel state={executor.circuitState(tool.name)} enabled={tool.circuitBreaker !== false} />
            </dd>
          </div>
          <div>
            <dt className={dt}>Calls · errors</dt>
            <dd className="tabular-nums">
              {stats ? `${stats.calls.toLocaleString('en-US')} · ${formatPercent(stats.failures, stats.calls)}` : '0'}
            </dd>
          </div>
          <div>
            <dt className={dt}>p50 · p95</dt>
            <dd className="tabular-nums">
              {formatDuration(stats?.p50LatencyMs)} · {formatDuration(stats?.p95LatencyMs)}
            </dd>
          </div>
          {tool.sensitivePaths.length > 0 && (
            <div className="col-span-full">
              <dt className={dt}>Sensitive arguments (always redacted)</dt>
              <dd className="flex flex-wrap gap-1 font-mono">
                {[...new Map(tool.sensitivePaths.map((p) => [p.toLowerCase(), p])).values()].map((p) => (
                  <span key={p} className="rounded border border-line px-1">
                    {p}
                  </span>
                ))}
              </dd>
            </div>
          )}
          {tool.fallbacks.length > 0 && (
            <div className="col-span-2">
              <dt className={dt}>Fallbacks</dt>
              <dd className="font-mono">{tool.fallbacks.join(' → ')}</dd>
            </div>
          )}
        </dl>
      </header>

      <div className="grid gap-5 xl:grid-cols-2">
        <section aria-labelledby="playground-heading" className="flex min-w-0 flex-col gap-1.5">
          <h2 id="playground-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
            Playground
          </h2>
          <Playground
            tool={tool.name}
            schema={inputJsonSchema(tool) as JsonSchema}
            policyNote={policyNote(tool.name, policy.text, policy.policy)}
            run={runTool}
          />
        </section>
        <section aria-labelledby="schema-heading" className="flex min-w-0 flex-col gap-1.5">
          <h2 id="schema-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
            Definition sent to models
          </h2>
          <SchemaTabs openai={toOpenAITool(tool)} anthropic={toAnthropicTool(tool)} />
        </section>
      </div>

      <section aria-labelledby="runs-heading" className="flex flex-col gap-1.5">
        <h2 id="runs-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
          Last runs{' '}
          <Link
            href={`/?tool=${encodeURIComponent(tool.name)}`}
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
              <caption className="sr-only">The last calls to {tool.name}</caption>
              <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
                <tr>
                  <th scope="col" className="px-2 py-1 font-medium">
                    Time
                  </th>
                  <th scope="col" className="px-2 py-1 font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-2 py-1 text-right font-medium">
                    Latency
                  </th>
                  <th scope="col" className="px-2 py-1 font-medium">
                    Actor
                  </th>
                  <th scope="col" className="px-2 py-1 font-medium">
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
    </div>
  );
}
