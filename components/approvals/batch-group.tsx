'use client';

import { Bot } from 'lucide-react';
import Link from 'next/link';
import { type ReactNode, useState } from 'react';
import type { ApprovalGroup } from '@/lib/ui/approval-groups';
import { bulkScopes } from '@/lib/ui/approval-groups';
import { shortenMiddle } from '@/lib/ui/shorten-middle';
import { VisibleText } from '../visible-text';
import { BulkDecisionForm, type BulkScope } from './decision-forms';

/** What the model said with the request, two lines high until opened. */
function WhyLine({ text, model }: { text: string | null; model: string | null }) {
  const [open, setOpen] = useState(false);
  if (!text) return null;
  return (
    <div className="flex items-start gap-1.5" data-testid="approval-why">
      <Bot size={13} aria-hidden className="mt-0.5 shrink-0 text-violet-600 dark:text-violet-300" />
      <p
        className={`min-w-0 flex-1 whitespace-pre-wrap break-words text-[12px] text-fg ${open ? '' : 'line-clamp-2'}`}
        title={model ? `What ${model} said with these calls` : 'What the model said with these calls'}
        data-testid="approval-why-text"
      >
        <VisibleText text={text} lines />
      </p>
      {(text.length > 160 || text.includes('\n')) && (
        <button
          type="button"
          onClick={() => setOpen((value) => !value)}
          aria-expanded={open}
          className="shrink-0 rounded px-1 text-[11px] text-fg-muted hover:bg-muted hover:text-fg"
        >
          {open ? 'less' : 'more'}
        </button>
      )}
    </div>
  );
}

/**
 * The calls of one request, under why they were asked for (the model's message with the
 * request) and, when there is more than one call to take in, one decision for all of them or
 * for the whole session (`BulkDecisionForm`). A lone call without a message is shown bare.
 */
export function BatchGroup({
  group,
  mayDecide,
  busy,
  failure,
  onBulk,
  children,
}: {
  group: ApprovalGroup;
  mayDecide: boolean;
  busy: boolean;
  /** Why the last bulk decision from this group was refused (or not sent). */
  failure: string | null;
  onBulk: (decision: 'approve' | 'deny', reason: string, scope: BulkScope) => void;
  children: ReactNode;
}) {
  const scopes = bulkScopes(group);
  const bulk = mayDecide && (scopes.batch > 0 || scopes.session > 0);
  const header = bulk || group.message?.text;
  return (
    <li
      className="flex flex-col gap-1"
      data-testid="approval-group"
      data-batch-id={group.batchId ?? undefined}
      data-session-id={group.sessionId ?? undefined}
    >
      {header && (
        <div className="flex flex-col gap-1 rounded border border-line border-l-4 border-l-violet-400 bg-subtle/60 px-2 py-1 text-xs dark:border-l-violet-500">
          <p className="flex flex-wrap items-center gap-x-2 text-[11px] text-fg-muted">
            <span>
              {group.calls.length === 1 ? 'One call' : `${group.calls.length} calls`} of one request
              {group.message?.model ? ` from ${group.message.model}` : ''}
            </span>
            {group.sessionId && (
              <span>
                · session{' '}
                <Link
                  href={`/sessions/${encodeURIComponent(group.sessionId)}`}
                  className="font-mono text-fg hover:underline"
                >
                  <VisibleText text={shortenMiddle(group.sessionId, 40)} />
                </Link>
                {group.sessionPending > group.calls.length && ` (${group.sessionPending} waiting)`}
              </span>
            )}
          </p>
          <WhyLine text={group.message?.text ?? null} model={group.message?.model ?? null} />
          {bulk && <BulkDecisionForm scopes={scopes} sessionId={group.sessionId} busy={busy} onSubmit={onBulk} />}
          {failure && (
            <p role="alert" className="text-red-800 dark:text-red-200" data-testid="bulk-error">
              {failure}
            </p>
          )}
        </div>
      )}
      <ol
        className="flex flex-col gap-1.5"
        aria-label={`Calls of one request${group.sessionId ? ` in session ${group.sessionId}` : ''}`}
      >
        {children}
      </ol>
    </li>
  );
}
