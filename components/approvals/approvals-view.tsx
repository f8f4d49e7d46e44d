'use client';

import { Inbox } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { type ApprovalGroup, groupApprovals } from '@/lib/ui/approval-groups';
import {
  type ApprovalQueue,
  type DecisionResult,
  decisionFailureMessage,
  isDecisionError,
  type NotifyStatus,
  type PendingApprovalJson,
} from '@/lib/ui/approvals';
import type { FieldIssue } from '@/lib/ui/json-issues';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { useMay, useViewer } from '../access/viewer';
import { isTypingTarget } from '../shortcuts-dialog';
import { LiveIndicator } from '../traces/live-indicator';
import { ApprovalCard, type Decidable, type PanelKind } from './approval-card';
import { useApprovalQueue, useApprovalsConnection } from './approvals-live';
import { BatchGroup } from './batch-group';
import { AlwaysAllowForm, type AlwaysDraft, type BulkScope, DenyForm } from './decision-forms';
import { DecisionLog, type LogEntry } from './decision-log';
import { type ArgumentsDraft, draftOf, EditArguments } from './edit-arguments';
import { NotificationToggle } from './notification-toggle';
import { useBulkDecision } from './use-bulk-decision';
import { type DecideVariables, useDecideApproval } from './use-decide-approval';

/** What the user typed for one call, kept while its card is gone (optimistically) and back (refused). */
interface Drafts {
  args?: ArgumentsDraft;
  reason?: string;
  always?: AlwaysDraft;
}

interface Failure {
  message: string;
  issues: FieldIssue[];
}

const LOG_SIZE = 8;

/**
 * The approval queue: pending calls oldest first, grouped by the request they came with (under
 * the model's message: why), live, decided with buttons or the keyboard (`a` approve, `A` approve
 * and don't ask again, `e` edit, `d` deny, `j`/`k` move), or all of a request or a session at once
 * with one reason. Each decision leaves the queue at once (optimistic) and comes back with the
 * server's reason when it is refused; invalid edits keep their field errors on the form. Decided
 * calls are listed above, with the rule "always allow" created.
 */
export function ApprovalsView({ initial, schemas }: { initial: ApprovalQueue; schemas: Record<string, JsonSchema> }) {
  const query = useApprovalQueue(initial);
  const connection = useApprovalsConnection();
  const viewer = useViewer();
  const mayDecide = useMay('approvals.decide');
  const decidableOf = useCallback(
    (a: PendingApprovalJson): Decidable =>
      !mayDecide ? 'role' : viewer && !viewer.localMode && a.principal?.id === viewer.id ? 'self' : 'yes',
    [mayDecide, viewer],
  );
  const queue = query.data?.approvals;
  const groups = useMemo(() => groupApprovals(queue ?? []), [queue]);
  // The order the page shows them in, which j/k follow.
  const approvals = useMemo(() => groups.flatMap((group) => group.calls), [groups]);
  const skewMs = query.data?.skewMs ?? 0;

  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [lastIndex, setLastIndex] = useState(0);
  const [panel, setPanel] = useState<{ traceId: string; kind: PanelKind } | null>(null);
  const [drafts, setDrafts] = useState<Record<string, Drafts>>({});
  const [failures, setFailures] = useState<Record<string, Failure>>({});
  const [log, setLog] = useState<LogEntry[]>([]);
  const [bulkFailure, setBulkFailure] = useState<{ key: string; message: string } | null>(null);

  // The selection follows its call; when that call leaves, the one now in its place.
  const foundIndex = approvals.findIndex((a) => a.trace_id === selectedId);
  const index = foundIndex >= 0 ? foundIndex : Math.min(lastIndex, approvals.length - 1);
  const selected = index >= 0 ? approvals[index] : undefined;
  useEffect(() => {
    if (foundIndex >= 0) setLastIndex(foundIndex);
  }, [foundIndex]);

  const setDraft = useCallback(
    (traceId: string, patch: Drafts) => setDrafts((all) => ({ ...all, [traceId]: { ...all[traceId], ...patch } })),
    [],
  );
  const addLog = useCallback((entry: LogEntry) => setLog((all) => [entry, ...all].slice(0, LOG_SIZE)), []);

  const mutation = useDecideApproval();
  const decide = useCallback(
    (variables: DecideVariables) => {
      setFailures(({ [variables.traceId]: _, ...rest }) => rest);
      mutation.mutate(variables, {
        onSuccess: (result: DecisionResult) => {
          setPanel((open) => (open?.traceId === variables.traceId ? null : open));
          setDrafts(({ [variables.traceId]: _, ...rest }) => rest);
          addLog({ ok: true, traceId: variables.traceId, tool: variables.tool, decision: variables.decision, result });
        },
        onError: (error) => {
          const message = decisionFailureMessage(error);
          const issues = isDecisionError(error) ? error.issues : [];
          setFailures((all) => ({ ...all, [variables.traceId]: { message, issues } }));
          addLog({ ok: false, traceId: variables.traceId, tool: variables.tool, message });
        },
      });
    },
    [mutation, addLog],
  );
  const busyId = mutation.isPending ? mutation.variables?.traceId : undefined;

  // Yes, and don't ask again: approve, adding the rule that matches exactly this call.
  const dontAskAgain = useCallback(
    (call: PendingApprovalJson) => {
      if (!call.suggested_specifier) return;
      decide({
        traceId: call.trace_id,
        tool: call.tool,
        decision: { decision: 'approve', always: { specifier: call.suggested_specifier } },
      });
    },
    [decide],
  );

  // One decision for a request's calls or a session's: each logged, the skipped ones on their cards.
  const bulkMutation = useBulkDecision();
  const decideAll = useCallback(
    (group: ApprovalGroup, decision: 'approve' | 'deny', reason: string, scope: BulkScope) => {
      const targets = approvals.filter((a) =>
        scope === 'batch' ? a.batch_id === group.batchId : a.session_id === group.sessionId,
      );
      const toolOf = (id: string) => targets.find((a) => a.trace_id === id)?.tool ?? '';
      const body =
        scope === 'batch'
          ? { decision, ...(reason ? { reason } : {}), batch_id: group.batchId ?? '' }
          : { decision, ...(reason ? { reason } : {}), session_id: group.sessionId ?? '' };
      setBulkFailure(null);
      bulkMutation.mutate(
        { body, traceIds: targets.filter((a) => decidableOf(a) === 'yes').map((a) => a.trace_id) },
        {
          onSuccess: (result) => {
            const logged: LogEntry[] = [];
            for (const traceId of result.decided) {
              logged.push({
                ok: true,
                traceId,
                tool: toolOf(traceId),
                decision: decision === 'deny' ? { decision, reason } : { decision },
                result: { id: traceId, rule_created: null },
              });
            }
            const refused: Record<string, Failure> = {};
            for (const skip of result.skipped) {
              const message = decisionFailureMessage(Object.assign(new Error(skip.message), skip));
              refused[skip.id] = { message, issues: [] };
              logged.push({ ok: false, traceId: skip.id, tool: toolOf(skip.id), message });
            }
            setFailures((all) => ({ ...all, ...refused }));
            setLog((all) => [...logged.reverse(), ...all].slice(0, Math.max(LOG_SIZE, logged.length)));
          },
          onError: (error) => {
            const message = decisionFailureMessage(error);
            setBulkFailure({ key: group.key, message });
          },
        },
      );
    },
    [approvals, bulkMutation, decidableOf],
  );
  const busyGroup = bulkMutation.isPending;

  const open = useCallback(
    (traceId: string, kind: PanelKind) => {
      setSelectedId(traceId);
      setPanel((current) => (current?.traceId === traceId && current.kind === kind ? null : { traceId, kind }));
      const call = approvals.find((a) => a.trace_id === traceId);
      if (!call) return;
      if (kind === 'edit' && !drafts[traceId]?.args) setDraft(traceId, { args: draftOf(call.arguments) });
      if (kind === 'always' && !drafts[traceId]?.always) {
        const specifier = call.suggested_specifier;
        setDraft(traceId, {
          always: { scope: specifier ? 'specifier' : 'tool', specifier: specifier ?? '', session: false },
        });
      }
    },
    [approvals, drafts, setDraft],
  );

  // a / e / d on the selected call, j / k to move; never while typing or with a modifier.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || event.defaultPrevented || isTypingTarget(event.target))
        return;
      if (document.querySelector('dialog[open]')) return;
      if (event.key === 'j' || event.key === 'k') {
        if (approvals.length === 0) return;
        event.preventDefault();
        const next = Math.max(0, Math.min(approvals.length - 1, index + (event.key === 'j' ? 1 : -1)));
        const id = approvals[next]?.trace_id ?? null;
        setSelectedId(id);
        if (id)
          document
            .querySelector(`[data-testid="approval"][data-trace-id="${id}"]`)
            ?.scrollIntoView({ block: 'nearest' });
        return;
      }
      if (!selected || busyId === selected.trace_id || decidableOf(selected) !== 'yes') return;
      if (event.key === 'a') {
        // With the edit form open, a plain approval would drop the edits: its own button decides.
        if (panel?.traceId === selected.trace_id && panel.kind === 'edit') return;
        event.preventDefault();
        decide({ traceId: selected.trace_id, tool: selected.tool, decision: { decision: 'approve' } });
      } else if (event.key === 'A' && event.shiftKey) {
        // Shift, not Caps Lock: a rule is made only when asked for.
        if (!selected.suggested_specifier || (panel?.traceId === selected.trace_id && panel.kind === 'edit')) return;
        event.preventDefault();
        dontAskAgain(selected);
      } else if (event.key === 'e' || event.key === 'd') {
        event.preventDefault();
        open(selected.trace_id, event.key === 'e' ? 'edit' : 'deny');
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [approvals, index, selected, busyId, panel, decide, dontAskAgain, open, decidableOf]);

  const stale = log.filter((entry) => !entry.ok && !approvals.some((a) => a.trace_id === entry.traceId));

  return (
    <div className="flex flex-col gap-3" data-testid="approvals-view">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold">Approvals</h1>
        <span className="text-sm tabular-nums text-fg-muted" data-testid="approvals-count">
          {approvals.length} pending
        </span>
        <LiveIndicator connection={connection} />
        <span className="text-xs text-fg-muted">
          <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> move ·{' '}
          <kbd className="font-mono">a</kbd> approve · <kbd className="font-mono">A</kbd> yes, don’t ask again ·{' '}
          <kbd className="font-mono">e</kbd> edit · <kbd className="font-mono">d</kbd> deny
        </span>
        <span className="ml-auto">
          <NotificationToggle />
        </span>
      </div>
      {query.isError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Could not load the queue: {String(query.error)}
        </p>
      )}
      <NotifyFailures status={query.data?.notify} />
      <DecisionLog entries={log} stale={stale.length > 0} />
      {approvals.length === 0 ? (
        <EmptyQueue />
      ) : (
        <ol className="flex flex-col gap-2" aria-label="Pending calls, oldest first" data-testid="approvals-list">
          {groups.map((group) => (
            <BatchGroup
              key={group.key}
              group={group}
              mayDecide={mayDecide}
              busy={busyGroup}
              failure={bulkFailure?.key === group.key ? bulkFailure.message : null}
              onBulk={(decision, reason, scope) => decideAll(group, decision, reason, scope)}
            >
              {group.calls.map((a) => {
                const id = a.trace_id;
                const kind = panel?.traceId === id ? panel.kind : null;
                const d = drafts[id] ?? {};
                const busy = busyId === id;
                const close = () => setPanel(null);
                return (
                  <ApprovalCard
                    key={id}
                    approval={a}
                    decidable={decidableOf(a)}
                    selected={selected?.trace_id === id}
                    skewMs={skewMs}
                    busy={busy}
                    open={kind}
                    error={failures[id]?.message ?? null}
                    onSelect={() => setSelectedId(id)}
                    onApprove={() => decide({ traceId: id, tool: a.tool, decision: { decision: 'approve' } })}
                    onDontAskAgain={() => dontAskAgain(a)}
                    onOpen={(next) => open(id, next)}
                  >
                    {kind === 'edit' && (
                      <EditArguments
                        traceId={id}
                        schema={schemas[a.tool] ?? null}
                        draft={d.args ?? draftOf(a.arguments)}
                        onDraft={(args) => setDraft(id, { args })}
                        serverIssues={failures[id]?.issues ?? []}
                        busy={busy}
                        onSubmit={(value) =>
                          decide({ traceId: id, tool: a.tool, decision: { decision: 'approve', arguments: value } })
                        }
                        onCancel={close}
                      />
                    )}
                    {kind === 'deny' && (
                      <DenyForm
                        reason={d.reason ?? ''}
                        onReason={(reason) => setDraft(id, { reason })}
                        busy={busy}
                        onSubmit={() =>
                          decide({ traceId: id, tool: a.tool, decision: { decision: 'deny', reason: d.reason ?? '' } })
                        }
                        onCancel={close}
                      />
                    )}
                    {kind === 'always' && d.always && (
                      <AlwaysAllowForm
                        tool={a.tool}
                        sessionId={a.session_id}
                        draft={d.always}
                        onDraft={(always) => setDraft(id, { always })}
                        busy={busy}
                        onSubmit={() => {
                          const always = d.always as AlwaysDraft;
                          const specifier = always.scope === 'specifier' ? always.specifier.trim() : '';
                          decide({
                            traceId: id,
                            tool: a.tool,
                            decision: {
                              decision: 'approve',
                              always: { ...(specifier ? { specifier } : {}), session: always.session },
                            },
                          });
                        }}
                        onCancel={close}
                      />
                    )}
                  </ApprovalCard>
                );
              })}
            </BatchGroup>
          ))}
        </ol>
      )}
    </div>
  );
}

/** The webhooks that could not be told of approvals lately (`approvals.notify`): reviewers may not have heard. */
function NotifyFailures({ status }: { status: NotifyStatus | undefined }) {
  if (!status || status.failures.length === 0) return null;
  const latest = status.failures[0] as NotifyStatus['failures'][number];
  return (
    <div
      role="status"
      className="rounded border border-amber-300 bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
      data-testid="notify-failures"
    >
      <p className="font-medium">
        {status.failures.length} approval notification{status.failures.length === 1 ? '' : 's'} could not be delivered
        lately: reviewers may not have heard of these calls.
      </p>
      <p>
        Last: {latest.type} of{' '}
        <Link href={`/traces/${encodeURIComponent(latest.trace_id)}`} className="font-mono hover:underline">
          {latest.trace_id.slice(-8)}
        </Link>{' '}
        to <span className="font-mono">{latest.target}</span>: {latest.error} (after {latest.attempts} attempts,{' '}
        {latest.at}). Every failure is in the{' '}
        <Link href="/audit?kind=notify.failed" className="underline">
          audit trail
        </Link>
        .
      </p>
    </div>
  );
}

function EmptyQueue() {
  return (
    <div
      className="flex flex-col items-start gap-1.5 rounded border border-dashed border-line p-4 text-sm"
      data-testid="approvals-empty"
    >
      <p className="flex items-center gap-1.5 font-medium">
        <Inbox size={15} className="text-fg-muted" aria-hidden /> Nothing is waiting for approval.
      </p>
      <p className="text-fg-muted">
        A call lands here, before anything runs, when its tool has a <code className="font-mono">write</code> or{' '}
        <code className="font-mono">exec</code> side effect (their default is <em>ask</em>), or when a rule on the{' '}
        <Link href="/policy" className="text-accent hover:underline">
          Policy page
        </Link>{' '}
        says <code className="font-mono">ask</code>, e.g. <code className="font-mono">run_shell(git push *)</code>. The
        agent waits for your decision (or gets <code className="font-mono">awaiting_approval</code> with{' '}
        <code className="font-mono">&quot;wait&quot;: false</code>); unanswered calls expire and are denied with{' '}
        <code className="font-mono">APPROVAL_TIMEOUT</code>.
      </p>
      <p className="text-fg-muted">
        New calls appear here live; the count in the navigation follows them on every page.
      </p>
    </div>
  );
}
