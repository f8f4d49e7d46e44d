import { ArrowLeft, Download, Lock } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { LiveRefresh } from '@/components/live-refresh';
import { StatusBadge } from '@/components/status';
import { Timestamp } from '@/components/timestamp';
import { AttemptsTable } from '@/components/trace/attempts-table';
import { ErrorPanel } from '@/components/trace/error-panel';
import { JsonTree } from '@/components/trace/json-tree';
import { PipelineStrip } from '@/components/trace/pipeline-strip';
import { ResultTabs } from '@/components/trace/result-tabs';
import { TraceCopyButtons } from '@/components/trace/trace-copy-buttons';
import { Waterfall } from '@/components/trace/waterfall';
import { TraceFlags } from '@/components/traces/trace-flags';
import { getToolscope } from '@/lib/server/toolscope';
import { formatDuration } from '@/lib/ui/format';
import { containsRedacted, fieldIssuesOf } from '@/lib/ui/json-issues';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }> };

function loadTrace(id: string) {
  return id.length <= 256 ? getToolscope().store.get(id) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const trace = loadTrace((await params).id);
  return { title: trace ? `${trace.tool} ${trace.status}` : 'Trace not found' };
}

function Section({ title, children, id }: { title: string; children: React.ReactNode; id: string }) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1.5">
      <h2 id={id} className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** One call, stage by stage: header, pipeline, waterfall, arguments, result, attempts, error. */
export default async function TracePage({ params }: Props) {
  const trace = loadTrace((await params).id);
  if (!trace) notFound();
  // Never hand the raw (unredacted) arguments to the client.
  const { rawArguments: _sealed, ...safe } = trace;
  const unfinished = safe.status === 'running' || safe.status === 'awaiting_approval';
  const issues = safe.error?.code === 'INVALID_ARGUMENTS' ? fieldIssuesOf(safe.error.details) : [];
  const argsAreText = typeof safe.arguments === 'string';
  const editedArguments = safe.metadata.editedArguments;

  return (
    <article className="flex flex-col gap-5" data-testid="trace-view" data-trace-id={safe.id}>
      {unfinished && <LiveRefresh traceId={safe.id} intervalMs={300} />}
      <header className="flex flex-col gap-2">
        <Link href="/" className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg">
          <ArrowLeft size={12} aria-hidden /> Traces
        </Link>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <h1 className="font-mono text-lg font-semibold" data-testid="trace-tool">
            <Link href={`/tools/${encodeURIComponent(safe.tool)}`} className="hover:underline">
              {safe.tool}
            </Link>
          </h1>
          <StatusBadge status={safe.status} testId="trace-status" />
          {safe.error && <code className="font-mono text-xs text-red-700 dark:text-red-300">{safe.error.code}</code>}
          <TraceFlags flags={safe.flags} />
          <div className="ml-auto flex flex-wrap items-center gap-1.5">
            <TraceCopyButtons
              traceId={safe.id}
              call={{
                toolCallId: safe.toolCallId,
                tool: safe.tool,
                arguments: safe.arguments,
                sessionId: safe.sessionId,
              }}
            />
            <a
              href={`/traces/${encodeURIComponent(safe.id)}/export`}
              download={`trace-${safe.id}.json`}
              className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
              data-testid="export-trace"
            >
              <Download size={12} aria-hidden /> Export JSON
            </a>
          </div>
        </div>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-xs sm:grid-cols-4 lg:grid-cols-7">
          <div>
            <dt className="text-fg-muted">Tool call id</dt>
            <dd className="truncate font-mono" title={safe.toolCallId}>
              {safe.toolCallId}
            </dd>
          </div>
          <div>
            <dt className="text-fg-muted">Trace id</dt>
            <dd className="truncate font-mono" title={safe.id}>
              {safe.id}
            </dd>
          </div>
          <div>
            <dt className="text-fg-muted">Session</dt>
            <dd className="truncate font-mono">
              {safe.sessionId ? (
                <Link href={`/?session=${encodeURIComponent(safe.sessionId)}`} className="text-accent hover:underline">
                  {safe.sessionId}
                </Link>
              ) : (
                '—'
              )}
            </dd>
          </div>
          <div>
            <dt className="text-fg-muted">Actor · side effect</dt>
            <dd>
              {safe.actor} · {safe.sideEffect ?? '—'}
            </dd>
          </div>
          <div>
            <dt className="text-fg-muted">Created</dt>
            <dd>
              <Timestamp ms={safe.createdAt} full />
            </dd>
          </div>
          <div>
            <dt className="text-fg-muted">Finished</dt>
            <dd>{safe.finishedAt === null ? 'not yet' : <Timestamp ms={safe.finishedAt} full />}</dd>
          </div>
          <div>
            <dt className="text-fg-muted">Total latency</dt>
            <dd className="font-semibold tabular-nums" data-testid="trace-latency">
              {formatDuration(safe.latencyMs)}
            </dd>
          </div>
        </dl>
      </header>

      <Section title="Pipeline" id="pipeline-heading">
        <PipelineStrip stages={safe.stages} callStatus={safe.status} />
      </Section>

      {safe.error && <ErrorPanel error={safe.error} />}

      <Section title="Waterfall" id="waterfall-heading">
        <Waterfall stages={safe.stages} attempts={safe.attempts} totalMs={safe.latencyMs} />
      </Section>

      <div className="grid gap-5 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Section title="Arguments (redacted)" id="arguments-heading">
          <div className="rounded border border-line p-3" data-testid="arguments">
            {containsRedacted(safe.arguments) && (
              <p className="mb-2 flex items-center gap-1 text-xs text-fg-muted">
                <Lock size={11} aria-hidden /> Secrets were redacted before storage; they are never shown.
              </p>
            )}
            {argsAreText ? (
              <>
                <p className="mb-1 text-xs text-fg-muted">The arguments were not valid JSON; as received:</p>
                <pre className="whitespace-pre-wrap break-all font-mono text-[12px]">{safe.arguments as string}</pre>
              </>
            ) : (
              <JsonTree value={safe.arguments} issues={issues} label="Arguments" testId="arguments-tree" />
            )}
            {editedArguments !== undefined && (
              <div className="mt-3 border-t border-line pt-2">
                <p className="mb-1 text-xs text-fg-muted">Arguments as edited by the approver:</p>
                <JsonTree value={editedArguments} label="Edited arguments" />
              </div>
            )}
          </div>
        </Section>
        <Section title="Result" id="result-heading">
          <ResultTabs
            data={{
              output: safe.output,
              stdout: safe.stdout,
              stderr: safe.stderr,
              exitCode: safe.exitCode,
              modelMessage: safe.modelMessage,
              finished: !unfinished,
              failed: safe.error !== null,
            }}
          />
        </Section>
      </div>

      <Section title={`Attempts (${safe.attempts.length})`} id="attempts-heading">
        <AttemptsTable attempts={safe.attempts} />
      </Section>
    </article>
  );
}
