'use client';

import { Ban, Check, ShieldCheck } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import type { ApprovalRecord, CallPrincipal } from '@/lib/executor/types';
import { decisionFailureMessage, isDecisionError } from '@/lib/ui/approvals';
import { isUnreachableError } from '@/lib/ui/unreachable';
import { useMay, useViewer } from '../access/viewer';
import { useDecideApproval } from '../approvals/use-decide-approval';
import { WaitTimers } from '../approvals/wait-timers';
import { Timestamp } from '../timestamp';
import { VisibleText } from '../visible-text';
import { ArgumentsDiff } from './arguments-diff';

const DECISION_LOOK = {
  approved: { word: 'Approved', className: 'text-emerald-800 dark:text-emerald-300' },
  denied: { word: 'Denied', className: 'text-orange-800 dark:text-orange-300' },
  expired: { word: 'Expired', className: 'text-red-700 dark:text-red-300' },
  cancelled: { word: 'Cancelled', className: 'text-zinc-700 dark:text-zinc-300' },
} as const;

function Row({ term, children, testId }: { term: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="contents">
      <dt className="text-fg-muted">{term}</dt>
      <dd className="min-w-0 [overflow-wrap:anywhere]" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/**
 * The approval audit of a call that waited for a person: the decision, who and when, the reason,
 * the rule that asked and the rule the decision created (on the Policy page), and the approver's
 * edit as a diff against what the model sent. While the call waits: approve, or deny with a
 * reason, here (edits and "always allow" on the Approvals page).
 */
export function ApprovalPanel({
  traceId,
  tool,
  principal = null,
  approval,
  original,
  edited,
  skewMs,
  readOnly = false,
}: {
  traceId: string;
  tool: string;
  /** Who made the call: they may not decide it. */
  principal?: CallPrincipal | null;
  approval: ApprovalRecord;
  original: unknown;
  edited: unknown;
  skewMs: number;
  /** An imported call: its wait is a record from elsewhere, nothing to decide or count here. */
  readOnly?: boolean;
}) {
  const pending = approval.decision === null;
  const look = approval.decision ? DECISION_LOOK[approval.decision] : null;
  return (
    <div
      className="flex flex-col gap-2 rounded border border-line p-3 text-sm"
      data-testid="approval-panel"
      data-decision={approval.decision ?? 'pending'}
    >
      <dl className="grid grid-cols-[8rem_minmax(0,1fr)] gap-x-3 gap-y-1 text-[13px]">
        <Row term="Decision" testId="approval-decision">
          {look ? (
            <span className={`font-semibold ${look.className}`}>
              {look.word}
              {approval.by && (
                <span className="font-normal text-fg">
                  {' '}
                  by{' '}
                  <span data-testid="approval-by">
                    <VisibleText text={approval.by} />
                  </span>
                  {approval.decidedBy && (
                    <span className="text-fg-muted" data-testid="approval-by-role">
                      {' '}
                      · {approval.decidedBy.role}
                    </span>
                  )}
                </span>
              )}
              {edited !== null && edited !== undefined && approval.decision === 'approved' && (
                <span className="font-normal text-fg"> with edited arguments</span>
              )}
            </span>
          ) : (
            <span className="font-semibold text-amber-800 dark:text-amber-300">
              {readOnly ? 'Was waiting for a person when it was exported' : 'Waiting for a person'}
            </span>
          )}
        </Row>
        {approval.decidedAt !== null && (
          <Row term="Decided at">
            <Timestamp ms={approval.decidedAt} full />
          </Row>
        )}
        {approval.reason && (
          <Row term="Reason" testId="approval-reason">
            <VisibleText text={approval.reason} lines />
          </Row>
        )}
        <Row term="Asked by" testId="approval-rule">
          <code className="font-mono text-[12px]">
            <VisibleText text={approval.rule} />
          </code>
        </Row>
        <Row term="Requested at">
          <Timestamp ms={approval.requestedAt} full />
          {pending && !readOnly && (
            <span className="ml-3">
              <WaitTimers requestedAt={approval.requestedAt} expiresAt={approval.expiresAt} skewMs={skewMs} />
            </span>
          )}
        </Row>
        {!pending && approval.expiresAt !== null && (
          <Row term="Would expire at">
            <Timestamp ms={approval.expiresAt} full />
          </Row>
        )}
        <Row term="Audit trail">
          <Link
            href={`/audit?target=${encodeURIComponent(traceId)}`}
            className="text-xs text-accent hover:underline"
            data-testid="approval-audit-link"
          >
            Who did what to this call →
          </Link>
        </Row>
        {approval.ruleCreated && (
          <Row term="Rule created" testId="approval-rule-created">
            <code className="font-mono text-[12px]">
              <VisibleText text={approval.ruleCreated} />
            </code>{' '}
            <Link href="/policy" className="text-xs text-accent hover:underline">
              on the Policy page →
            </Link>
          </Row>
        )}
      </dl>
      {edited !== null && edited !== undefined && (
        <div className="flex flex-col gap-1">
          <h3 className="text-xs font-medium text-fg-muted">Edited arguments (what ran) against what the model sent</h3>
          <ArgumentsDiff before={original} after={edited} />
        </div>
      )}
      {pending && !readOnly && <PendingDecision traceId={traceId} tool={tool} principal={principal} />}
    </div>
  );
}

/** Approve or deny (with a reason) from the trace page; the Approvals page has edits and rules. */
function PendingDecision({
  traceId,
  tool,
  principal,
}: {
  traceId: string;
  tool: string;
  principal: CallPrincipal | null;
}) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const mutation = useDecideApproval();
  const viewer = useViewer();
  const mayDecide = useMay('approvals.decide');
  const error = mutation.error;
  if (!mayDecide || (viewer && !viewer.localMode && principal?.id === viewer.id)) {
    return (
      <p className="border-t border-line pt-2 text-xs text-fg-muted" data-testid="panel-undecidable">
        {mayDecide
          ? 'You made this call with your key: another reviewer must approve or deny it.'
          : 'Your role cannot decide approvals: a reviewer or an admin must.'}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-1.5 border-t border-line pt-2">
      <div className="flex flex-wrap items-center gap-1.5">
        <button
          type="button"
          disabled={mutation.isPending}
          onClick={() => mutation.mutate({ traceId, tool, decision: { decision: 'approve' } })}
          className="inline-flex items-center gap-1 rounded bg-emerald-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-emerald-800 disabled:opacity-50 dark:bg-emerald-600 dark:hover:bg-emerald-500"
          data-testid="panel-approve"
        >
          <Check size={13} aria-hidden /> Approve
        </button>
        <button
          type="button"
          disabled={mutation.isPending}
          onClick={() => setDenying((d) => !d)}
          aria-expanded={denying}
          className="inline-flex items-center gap-1 rounded border border-orange-300 px-2 py-1 text-xs font-medium text-orange-800 hover:bg-orange-50 dark:border-orange-800 dark:text-orange-300 dark:hover:bg-orange-950/40"
          data-testid="panel-deny"
        >
          <Ban size={13} aria-hidden /> Deny…
        </button>
        <Link href="/approvals" className="inline-flex items-center gap-1 text-xs text-accent hover:underline">
          <ShieldCheck size={13} aria-hidden /> Edit or always allow in Approvals →
        </Link>
      </div>
      {denying && (
        <form
          className="flex flex-wrap items-center gap-1.5"
          onSubmit={(event) => {
            event.preventDefault();
            mutation.mutate({ traceId, tool, decision: { decision: 'deny', reason } });
          }}
        >
          <label className="sr-only" htmlFor={`panel-reason-${traceId}`}>
            Reason (the model reads it)
          </label>
          <input
            id={`panel-reason-${traceId}`}
            // biome-ignore lint/a11y/noAutofocus: opened on purpose to type the reason
            autoFocus
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            placeholder="Reason (the model reads it)"
            maxLength={2000}
            className="h-7 min-w-0 flex-1 rounded border border-line bg-bg px-1.5 text-[13px]"
          />
          <button
            type="submit"
            disabled={mutation.isPending}
            className="rounded bg-orange-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-orange-800 disabled:opacity-50 dark:bg-orange-600"
          >
            Deny
          </button>
        </form>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {isUnreachableError(error) ? (
            decisionFailureMessage(error)
          ) : (
            <>
              Not decided{isDecisionError(error) ? ` (${error.code})` : ''}: {error.message}
            </>
          )}
        </p>
      )}
    </div>
  );
}
