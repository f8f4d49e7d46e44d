'use client';

import { useQuery } from '@tanstack/react-query';
import { Check, X } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import type { PlaygroundRun } from '@/app/tools/[name]/actions';
import { isUnfinished } from '@/lib/ui/live-trace';
import { type TraceJson, traceFromJson } from '@/lib/ui/trace-from-json';
import { useDecideApproval } from '../approvals/use-decide-approval';
import { useTraceEvents } from '../use-trace-events';

/** While the event stream is down, a call still unfinished is polled this often. */
const POLL_MS = 2_000;

type Answered = Extract<PlaygroundRun, { ok: true }>;

async function fetchRun(traceId: string): Promise<Answered> {
  const response = await fetch(`/api/v1/traces/${encodeURIComponent(traceId)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`trace ${traceId}: HTTP ${response.status}`);
  const trace = traceFromJson((await response.json()) as TraceJson);
  return {
    ok: true,
    traceId: trace.id,
    status: trace.status,
    success: trace.status === 'succeeded',
    output: trace.output,
    error: trace.error,
    latencyMs: trace.latencyMs ?? 0,
    modelMessage: trace.modelMessage ?? '',
  };
}

/**
 * A playground run followed after it answered: a call waiting for approval (or still running) is
 * refetched on its trace's events until it finishes, so the result below shows what it became.
 * Returns the run as it stands now.
 */
export function useFollowedRun(run: Answered): Answered {
  const unfinished = isUnfinished(run.status);
  const query = useQuery({
    queryKey: ['playground-run', run.traceId],
    queryFn: () => fetchRun(run.traceId),
    initialData: run,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: unfinished,
    refetchInterval: (q) => (q.state.data && isUnfinished(q.state.data.status) ? POLL_MS : false),
  });
  const current = query.data ?? run;
  useTraceEvents(() => void query.refetch(), {
    enabled: isUnfinished(current.status),
    trace: run.traceId,
    onReconnect: () => void query.refetch(),
  });
  return current;
}

/** Approve or deny the playground's pending call right here, as on the Approvals page. */
export function InlineDecision({ traceId, tool }: { traceId: string; tool: string }) {
  const decide = useDecideApproval();
  const [reason, setReason] = useState('');
  const busy = decide.isPending;
  return (
    <div className="flex flex-col gap-2" data-testid="playground-decision">
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          disabled={busy}
          onClick={() => decide.mutate({ traceId, tool, decision: { decision: 'approve' } })}
          className="inline-flex items-center gap-1 rounded bg-emerald-600 px-2 py-1 text-xs font-medium text-white hover:bg-emerald-700 disabled:opacity-50"
          data-testid="playground-approve"
        >
          <Check size={13} aria-hidden /> Approve
        </button>
        <input
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          placeholder="Reason to deny (optional)"
          aria-label="Reason to deny"
          className="min-w-0 flex-1 rounded border border-line bg-bg px-2 py-1 text-xs"
          data-testid="playground-deny-reason"
        />
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            decide.mutate({
              traceId,
              tool,
              decision: { decision: 'deny', reason: reason.trim() || 'Denied from the playground' },
            })
          }
          className="inline-flex items-center gap-1 rounded border border-red-400 px-2 py-1 text-xs font-medium text-red-700 hover:bg-red-50 disabled:opacity-50 dark:text-red-300 dark:hover:bg-red-950/40"
          data-testid="playground-deny"
        >
          <X size={13} aria-hidden /> Deny
        </button>
      </div>
      {decide.error && (
        <p role="alert" className="text-red-700 dark:text-red-300" data-testid="playground-decision-error">
          {decide.error.message}
        </p>
      )}
      <p className="text-fg-muted">
        Or decide it in{' '}
        <Link href="/approvals" className="text-accent hover:underline" data-testid="playground-approvals-link">
          Approvals →
        </Link>
      </p>
    </div>
  );
}
