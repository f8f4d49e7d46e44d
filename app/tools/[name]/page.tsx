import { ArrowLeft } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Playground } from '@/components/tools/playground';
import { PolicyBadge, SideEffectLabel } from '@/components/tools/policy-badge';
import { SchemaTabs } from '@/components/tools/schema-tabs';
import { ToolActivity } from '@/components/tools/tool-activity';
import { ToolRuns } from '@/components/tools/tool-runs';
import { DEFAULT_RANGE, isKnownTool, parseRange, toolStatsJson } from '@/lib/api/stats';
import { circuitsJson } from '@/lib/api/tool-json';
import { toAnthropicTool, toOpenAITool } from '@/lib/executor/json-schema';
import { getToolscope } from '@/lib/server/toolscope';
import { BUILTIN_TOOL_NAMES } from '@/lib/tools/builtin-tool-names';
import { formatDuration } from '@/lib/ui/format';
import { describePolicy, describeRetry, formSchemaOf, policyNote } from '@/lib/ui/tool-info';
import { availabilityOf } from '../catalog';
import { runTool } from './actions';
import { CircuitPanel } from './circuit-panel';
import { describeBreaker } from './describe-breaker';

export const dynamic = 'force-dynamic';

type Props = {
  params: Promise<{ name: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

/**
 * One tool: its settings, its activity over a range (charts, live), its definition as models
 * get it, a playground and its last runs (live). A tool that is not registered but was seen in
 * recorded calls (an agent asked for it) gets its activity and runs; any other name is a 404.
 */
export default async function ToolPage({ params, searchParams }: Props) {
  const name = decodeURIComponent((await params).name);
  const asked = (await searchParams).range;
  const range = parseRange(typeof asked === 'string' ? asked : undefined) ?? DEFAULT_RANGE;
  const ts = getToolscope();
  const { executor, store, toolPolicy } = ts;
  if (!isKnownTool(ts, name)) notFound();
  const now = Date.now();
  const activity = (
    <ToolActivity key={range} tool={name} initialStats={toolStatsJson(ts, name, range, now)} renderedAt={now} />
  );
  const runs = <ToolRuns tool={name} initialRuns={store.list({ tool: name, limit: 10 }).items} renderedAt={now} />;
  const tool = executor.registry.get(name);
  if (!tool) {
    return (
      <div className="flex flex-col gap-5" data-testid="tool-page" data-tool={name} data-registered="false">
        <header className="flex flex-col gap-1">
          <Link href="/tools" className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg">
            <ArrowLeft size={12} aria-hidden /> Tools
          </Link>
          <h1 className="font-mono text-lg font-semibold">{name}</h1>
          <p className="max-w-3xl text-fg-muted">
            Not registered: agents asked for this tool and the calls were recorded (as <code>UNKNOWN_TOOL</code>), but
            Toolscope has no tool of this name to run.
          </p>
        </header>
        {activity}
        {runs}
      </div>
    );
  }
  const policy = describePolicy(toolPolicy, tool);
  const availability = availabilityOf(tool);
  const dt = 'text-fg-muted';
  const breaker = describeBreaker(tool.circuitBreaker, tool.circuitKey !== undefined);
  // Built-in tools take these from the config's `tools.<name>`; an MCP server's tools from its entry.
  const builtin = (BUILTIN_TOOL_NAMES as readonly string[]).includes(tool.name);
  const settingHint = (key: string) =>
    builtin
      ? `Set by tools.${tool.name}.${key} in the config`
      : tool.name.includes('__') && key !== 'circuit_breaker'
        ? `Set by mcp.servers.<server>.${key} in the config`
        : undefined;

  return (
    <div className="flex flex-col gap-5" data-testid="tool-page" data-tool={name}>
      <header className="flex flex-col gap-1">
        <Link href="/tools" className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg">
          <ArrowLeft size={12} aria-hidden /> Tools
        </Link>
        <h1 className="font-mono text-lg font-semibold">{tool.name}</h1>
        <p className="max-w-3xl text-fg-muted">{tool.description}</p>
        {!availability.available && (
          <p
            className="max-w-3xl rounded border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
            data-testid="tool-unavailable"
          >
            Unavailable now{availability.reason ? `: ${availability.reason}` : '.'} A run fails with{' '}
            <code className="font-mono">UPSTREAM_UNAVAILABLE</code> (retryable) until it is back; the{' '}
            <Link href="/tools" className="text-accent hover:underline">
              Tools page
            </Link>{' '}
            shows its server's state.
          </p>
        )}
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
          <div title={settingHint('timeout_ms')}>
            <dt className={dt}>Timeout</dt>
            <dd className="tabular-nums" data-testid="tool-timeout">
              {formatDuration(tool.timeoutMs)}
            </dd>
          </div>
          <div className="col-span-2" title={settingHint('retries')}>
            <dt className={dt}>Retries</dt>
            <dd data-testid="tool-retries">{describeRetry(tool.retry)}</dd>
          </div>
          <div className="col-span-2 sm:col-span-3" title={settingHint('circuit_breaker')}>
            <dt className={dt}>Circuit breaker</dt>
            <dd data-testid="tool-breaker">{breaker}</dd>
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

      {tool.circuitBreaker !== false && (
        <CircuitPanel
          tool={tool.name}
          initial={{ state: executor.circuitState(tool.name), circuits: circuitsJson(ts, tool.name) }}
          renderedAt={now}
          thresholds={breaker}
        />
      )}

      {activity}

      <div className="grid gap-5 xl:grid-cols-2">
        <section aria-labelledby="playground-heading" className="flex min-w-0 flex-col gap-1.5">
          <h2 id="playground-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
            Playground
          </h2>
          <Playground
            tool={tool.name}
            schema={formSchemaOf(tool)}
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

      {runs}
    </div>
  );
}
