import { ArrowLeft, ChartGantt, ChevronLeft, ChevronRight, Download } from 'lucide-react';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { approvalWaitMs } from '@/lib/executor/approval-wait';
import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { isUnfinished } from '@/lib/ui/live-trace';
import type { TraceView } from '@/lib/ui/trace-from-json';
import { ComparePicker } from '../compare/compare-picker';
import { type Lineage, LineageBar } from '../replay/lineage';
import { SessionReplayButton } from '../replay/session-replay-button';
import { StatusBadge } from '../status';
import { Timestamp } from '../timestamp';
import { TraceFlags } from '../traces/trace-flags';
import { VisibleText } from '../visible-text';
import { TraceCopyButtons } from './trace-copy-buttons';

/** The calls recorded just before and after this one (ids), for `[` and `]`. */
export interface Neighbours {
  newer: string | null;
  older: string | null;
}

function NeighbourLink({ id, rel, children }: { id: string | null; rel: 'newer' | 'older'; children: ReactNode }) {
  const className = 'inline-flex items-center gap-0.5 rounded border border-line px-1.5 py-0.5 text-xs';
  const key = rel === 'newer' ? '[' : ']';
  if (!id) {
    return (
      <span className={`${className} text-fg-muted opacity-50`} title={`No ${rel} call`}>
        {children}
      </span>
    );
  }
  return (
    <Link
      href={`/traces/${encodeURIComponent(id)}`}
      className={`${className} text-fg-muted hover:bg-muted hover:text-fg`}
      title={`Open the ${rel} call (${key})`}
      data-testid={`trace-${rel}`}
      aria-keyshortcuts={key}
    >
      {children}
    </Link>
  );
}

/** The wait for a person beside the latency (its own figure, not part of it); nothing for a call that never waited. */
function ApprovalWait({ trace }: { trace: TraceView }) {
  const { approval } = trace;
  if (!approval) return null;
  const wait =
    trace.status === 'awaiting_approval' ? null : approvalWaitMs(approval, trace.finishedAt ?? approval.requestedAt);
  return (
    <dd className="text-[11px] tabular-nums text-amber-800 dark:text-amber-300" data-testid="trace-approval-wait">
      {wait === null ? 'waiting for approval' : `waited ${formatDuration(wait)} for approval`}
    </dd>
  );
}

/**
 * The trace header: the tool (a link to its page only when the tool is registered), status, error
 * code, flags, actions (replay first), the call's ids and times, and its lineage (replay of,
 * replays, served from a recording). `latencyMs` is execution only (of a running call, so far); the
 * wait for approval shows beside it.
 */
/** `name version` of the MCP client a call came through (`metadata.mcp_client`), or null. */
function mcpClientOf(metadata: unknown): string | null {
  if (typeof metadata !== 'object' || metadata === null) return null;
  const client = (metadata as { mcp_client?: unknown }).mcp_client;
  if (typeof client !== 'object' || client === null) return null;
  const { name, version } = client as { name?: unknown; version?: unknown };
  if (typeof name !== 'string' || name === '') return null;
  return typeof version === 'string' && version !== '' ? `${name} ${version}` : name;
}

export function TraceHeader({
  trace,
  toolKnown,
  neighbours,
  live,
  lineage,
  replayActions,
}: {
  trace: TraceView;
  toolKnown: boolean;
  neighbours: Neighbours;
  /** The live indicator and the cancel button, while the call runs. */
  live?: ReactNode;
  lineage: Lineage;
  /** Replay, replay with edits, replay with fault. */
  replayActions?: ReactNode;
}) {
  const unfinished = isUnfinished(trace.status);
  const mcpClient = mcpClientOf(trace.metadata);
  return (
    <header className="flex flex-col gap-2">
      <div className="flex items-center gap-2">
        <Link href="/" className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg">
          <ArrowLeft size={12} aria-hidden /> Traces
        </Link>
        <nav className="ml-auto flex gap-1" aria-label="Neighbouring calls">
          <NeighbourLink id={neighbours.newer} rel="newer">
            <ChevronLeft size={12} aria-hidden /> Newer
          </NeighbourLink>
          <NeighbourLink id={neighbours.older} rel="older">
            Older <ChevronRight size={12} aria-hidden />
          </NeighbourLink>
        </nav>
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="font-mono text-lg font-semibold" data-testid="trace-tool">
          {toolKnown ? (
            <Link href={`/tools/${encodeURIComponent(trace.tool)}`} className="hover:underline">
              <VisibleText text={trace.tool} />
            </Link>
          ) : (
            <span title="This tool is not registered in this Toolscope">
              <VisibleText text={trace.tool} />
            </span>
          )}
        </h1>
        {!toolKnown && <span className="text-xs text-fg-muted">(unknown tool)</span>}
        <StatusBadge status={trace.status} testId="trace-status" />
        {trace.error && (
          <code
            className={`font-mono text-xs ${trace.status === 'cancelled' ? 'text-fg-muted' : 'text-red-700 dark:text-red-300'}`}
            data-testid="trace-error-code"
          >
            {trace.error.code}
          </code>
        )}
        <TraceFlags flags={trace.flags} servedFrom={trace.servedFrom} imported={trace.imported} />
        {live}
        <div className="ml-auto flex flex-wrap items-center gap-1.5">
          {replayActions}
          <ComparePicker
            subject={{
              kind: 'trace',
              id: trace.id,
              tool: trace.tool,
              sessionId: trace.sessionId,
              replayOf: lineage.replayOf,
              replays: lineage.replays,
            }}
          />
          <TraceCopyButtons
            traceId={trace.id}
            call={{
              toolCallId: trace.toolCallId,
              tool: trace.tool,
              arguments: trace.arguments,
              sessionId: trace.sessionId,
            }}
          />
          <a
            href={`/api/v1/traces/${encodeURIComponent(trace.id)}/export`}
            download={`toolscope-trace-${trace.id}.json`}
            title="Download this trace as a Toolscope export file (redacted), to import into another Toolscope"
            className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
            data-testid="export-trace"
          >
            <Download size={12} aria-hidden /> Export JSON
          </a>
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-xs sm:grid-cols-4 lg:grid-cols-7">
        <div className="min-w-0">
          <dt className="text-fg-muted">Tool call id</dt>
          <dd className="truncate font-mono" title={escapeInvisible(trace.toolCallId)}>
            <VisibleText text={trace.toolCallId} />
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-fg-muted">Trace id</dt>
          <dd className="truncate font-mono" title={trace.id}>
            {trace.id}
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-fg-muted">Session</dt>
          <dd className="flex min-w-0 flex-col items-start gap-0.5">
            {trace.sessionId ? (
              <>
                <Link
                  href={`/?session=${encodeURIComponent(trace.sessionId)}`}
                  className="max-w-full truncate font-mono text-accent hover:underline"
                  title={escapeInvisible(trace.sessionId)}
                >
                  <VisibleText text={trace.sessionId} />
                </Link>
                <span className="flex flex-wrap items-center gap-1">
                  <Link
                    href={`/sessions/${encodeURIComponent(trace.sessionId)}`}
                    className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
                    title="Every call of this session on one time axis"
                    data-testid="open-session-view"
                  >
                    <ChartGantt size={12} aria-hidden /> Session view
                  </Link>
                  {!trace.imported && <SessionReplayButton sessionId={trace.sessionId} />}
                  <a
                    href={`/api/v1/sessions/${encodeURIComponent(trace.sessionId)}/export`}
                    download
                    className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
                    title="Download every call of this session as one Toolscope export file (redacted)"
                    data-testid="export-session"
                  >
                    <Download size={12} aria-hidden /> Export session
                  </a>
                </span>
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt className="text-fg-muted">Made by</dt>
          <dd data-testid="trace-principal">
            {trace.principal ? (
              <span
                title={`The key that made the call: ${escapeInvisible(trace.principal.name)} (${trace.principal.role})`}
              >
                <span className="font-medium">
                  <VisibleText text={trace.principal.name} />
                </span>
                <span className="text-fg-muted"> · {trace.principal.role}</span>
              </span>
            ) : (
              <span className="text-fg-muted" title="Recorded before principals, or imported from another Toolscope">
                unknown
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-fg-muted" title="What the caller calls itself (a label), and the tool's side effect">
            Actor · side effect
          </dt>
          <dd>
            <VisibleText text={trace.actor} /> · {trace.sideEffect ?? '—'}
            {mcpClient && (
              <span
                className="block text-fg-muted"
                title="The MCP client that made the call, as it named itself when it connected (a label)"
                data-testid="trace-mcp-client"
              >
                via <VisibleText text={mcpClient} />
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-fg-muted">Created</dt>
          <dd>
            <Timestamp ms={trace.createdAt} full />
          </dd>
        </div>
        <div>
          <dt className="text-fg-muted">Finished</dt>
          <dd>{trace.finishedAt === null ? 'not yet' : <Timestamp ms={trace.finishedAt} full />}</dd>
        </div>
        <div>
          <dt
            className="text-fg-muted"
            title="Execution: from arrival to answer, less the time the call waited for approval"
          >
            {unfinished ? 'Latency so far' : 'Latency'}
          </dt>
          <dd className="font-semibold tabular-nums" data-testid="trace-latency">
            {formatDuration(trace.latencyMs)}
          </dd>
          <ApprovalWait trace={trace} />
        </div>
      </dl>
      <LineageBar traceId={trace.id} lineage={lineage} />
    </header>
  );
}
