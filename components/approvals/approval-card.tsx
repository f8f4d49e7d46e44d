'use client';

import { Check, CheckCheck, ChevronDown, ChevronRight, Pencil, ShieldCheck, X } from 'lucide-react';
import Link from 'next/link';
import { memo, type ReactNode, useState } from 'react';
import type { SideEffect } from '@/lib/executor/types';
import type { PendingApprovalJson } from '@/lib/ui/approvals';
import { containsInvisible, escapeInvisible } from '@/lib/ui/invisible-characters';
import { containsRedacted } from '@/lib/ui/json-issues';
import { shortenMiddle } from '@/lib/ui/shorten-middle';
import { SideEffectLabel } from '../tools/policy-badge';
import { JsonTree } from '../trace/json-tree';
import { VisibleText } from '../visible-text';
import { CallPreviewView } from './call-preview';
import { WaitTimers } from './wait-timers';

export type PanelKind = 'edit' | 'deny' | 'always';

/** Whether the viewer may decide a call: yes, not with their role, or not their own call. */
export type Decidable = 'yes' | 'role' | 'self';

/** Characters of a tool's name the card's heading shows; the rest is cut from the middle. */
const TOOL_NAME_CHARS = 40;

const button =
  'inline-flex items-center gap-1 rounded border px-2 py-0.5 text-xs font-medium disabled:opacity-50 aria-expanded:ring-2 aria-expanded:ring-accent/50';

const Kbd = ({ children }: { children: string }) => (
  <kbd className="ml-0.5 rounded border border-current/30 px-1 font-mono text-[10px] opacity-70">{children}</kbd>
);

/** The rule "yes, and don't ask again" adds for a call: its tool with the exact specifier; null without one. */
export function dontAskAgainRule(a: Pick<PendingApprovalJson, 'tool' | 'suggested_specifier'>): string | null {
  return a.suggested_specifier ? `${a.tool}(${a.suggested_specifier})` : null;
}

/** The call's raw arguments, in the details: memoized, as the card re-renders with its panels. */
const Arguments = memo(function Arguments({ value }: { value: unknown }) {
  return typeof value === 'string' ? (
    <pre className="whitespace-pre-wrap break-all font-mono text-[12px]" data-testid="approval-raw-arguments">
      <VisibleText text={value} lines />
    </pre>
  ) : (
    <JsonTree value={value} expandDepth={2} label="Arguments" testId="approval-raw-arguments" />
  );
});

/**
 * One call waiting for a person, compact: the tool, the rule that asked, how long it has waited
 * and when it expires; the call as a person reads it (the tool's preview: a command line, a
 * file's diff against the disk, `METHOD URL`…); the decisions, "yes, and don't ask again" with
 * the rule it adds; session and key. The details (whole preview, raw arguments, actor, trace id)
 * open below, as does the decision form (`open`).
 */
export function ApprovalCard({
  approval,
  decidable = 'yes',
  selected,
  skewMs,
  busy,
  open,
  error,
  onSelect,
  onApprove,
  onDontAskAgain,
  onOpen,
  children,
}: {
  approval: PendingApprovalJson;
  decidable?: Decidable;
  selected: boolean;
  skewMs: number;
  busy: boolean;
  open: PanelKind | null;
  error: string | null;
  onSelect: () => void;
  onApprove: () => void;
  onDontAskAgain: () => void;
  onOpen: (kind: PanelKind) => void;
  children?: ReactNode;
}) {
  const a = approval;
  const [details, setDetails] = useState(false);
  const headingId = `approval-${a.trace_id}`;
  const detailsId = `approval-details-${a.trace_id}`;
  const rule = dontAskAgainRule(a);
  const toolShown = shortenMiddle(a.tool, TOOL_NAME_CHARS);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: selection by keyboard is j/k on the page; the buttons inside are focusable
    <li
      aria-labelledby={headingId}
      aria-current={selected ? 'true' : undefined}
      data-testid="approval"
      data-trace-id={a.trace_id}
      data-selected={selected || undefined}
      onClick={onSelect}
      className={`flex scroll-mt-14 flex-col gap-1 rounded border bg-bg px-2.5 py-1.5 ${selected ? 'border-accent ring-1 ring-accent' : 'border-line'}`}
    >
      <div className="flex flex-wrap items-center gap-x-2.5 gap-y-0.5">
        <h2
          id={headingId}
          className="font-mono text-sm font-semibold"
          title={toolShown === a.tool ? undefined : escapeInvisible(a.tool)}
        >
          {toolShown === a.tool ? (
            <VisibleText text={a.tool} />
          ) : (
            <>
              <span className="sr-only">{escapeInvisible(a.tool)}</span>
              <span aria-hidden>
                <VisibleText text={toolShown} />
              </span>
            </>
          )}
        </h2>
        <span className="text-xs text-fg-muted" title="The worst this call can do">
          <SideEffectLabel effect={a.side_effect as SideEffect} />
        </span>
        <span
          className="rounded border border-amber-300 px-1 text-[11px] text-amber-800 dark:border-amber-800 dark:text-amber-300"
          title="The rule or default that asked for approval"
          data-testid="approval-rule"
        >
          <VisibleText text={a.rule} />
        </span>
        <span className="ml-auto">
          <WaitTimers
            requestedAt={Date.parse(a.requested_at ?? '')}
            expiresAt={a.expires_at ? Date.parse(a.expires_at) : null}
            skewMs={skewMs}
          />
        </span>
      </div>
      {(containsInvisible(a.arguments, { lines: true }) || containsInvisible(a.tool)) && (
        <p className="text-[11px] text-red-800 dark:text-red-200" data-testid="approval-invisible">
          This call holds invisible or control characters, shown as marked escapes such as{' '}
          <code className="font-mono">\u202E</code>: what runs holds the characters themselves.
        </p>
      )}
      <CallPreviewView preview={a.preview} summary={a.summary} compact testId="approval-arguments" />
      {decidable !== 'yes' && (
        <p className="text-xs text-fg-muted" data-testid="approval-undecidable" data-reason={decidable}>
          {decidable === 'self'
            ? 'You made this call with your key: another reviewer must approve or deny it.'
            : 'Your role cannot decide approvals: a reviewer or an admin must.'}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-1.5">
        {decidable === 'yes' && (
          <fieldset className="flex flex-wrap items-center gap-1.5">
            <legend className="sr-only">Decide {escapeInvisible(a.tool)}</legend>
            <button
              type="button"
              disabled={busy}
              onClick={onApprove}
              aria-keyshortcuts="a"
              className={`${button} border-emerald-700 bg-emerald-700 text-white hover:bg-emerald-800 dark:border-emerald-600 dark:bg-emerald-600 dark:hover:bg-emerald-500`}
              data-testid="approve"
            >
              <Check size={13} aria-hidden /> Approve {selected && <Kbd>a</Kbd>}
            </button>
            {rule && (
              <button
                type="button"
                disabled={busy}
                onClick={onDontAskAgain}
                aria-keyshortcuts="Shift+A"
                title={`Approve, and add the rule "allow ${escapeInvisible(rule)}": this exact call runs without asking from now on (removable on the Policy page)`}
                className={`${button} max-w-full border-emerald-700 text-emerald-800 hover:bg-emerald-50 dark:border-emerald-600 dark:text-emerald-300 dark:hover:bg-emerald-950/40`}
                data-testid="dont-ask-again"
              >
                <CheckCheck size={13} aria-hidden /> Yes, don’t ask again:{' '}
                <code className="truncate font-mono text-[11px] font-normal" data-testid="dont-ask-again-rule">
                  <VisibleText text={rule} />
                </code>
                {selected && <Kbd>A</Kbd>}
              </button>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() => onOpen('edit')}
              aria-expanded={open === 'edit'}
              aria-keyshortcuts="e"
              className={`${button} border-line text-fg hover:bg-muted`}
              data-testid="edit"
            >
              <Pencil size={13} aria-hidden /> Edit {selected && <Kbd>e</Kbd>}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => onOpen('deny')}
              aria-expanded={open === 'deny'}
              aria-keyshortcuts="d"
              className={`${button} border-orange-300 text-orange-800 hover:bg-orange-50 dark:border-orange-800 dark:text-orange-300 dark:hover:bg-orange-950/40`}
              data-testid="deny"
            >
              <X size={13} aria-hidden /> Deny {selected && <Kbd>d</Kbd>}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => onOpen('always')}
              aria-expanded={open === 'always'}
              className={`${button} border-line text-fg hover:bg-muted`}
              data-testid="always"
            >
              <ShieldCheck size={13} aria-hidden /> Always allow…
            </button>
          </fieldset>
        )}
        <span className="ml-auto flex flex-wrap items-center gap-x-2.5 text-xs text-fg-muted">
          <span>
            session{' '}
            {a.session_id ? (
              <Link
                href={`/?session=${encodeURIComponent(a.session_id)}`}
                className="font-mono text-fg hover:underline"
              >
                <VisibleText text={shortenMiddle(a.session_id, 32)} />
              </Link>
            ) : (
              <span className="italic">none</span>
            )}
          </span>
          <span data-testid="approval-principal">
            by{' '}
            {a.principal ? (
              <span className="text-fg" title={`The key that made the call (${a.principal.role})`}>
                <span className="font-medium">
                  <VisibleText text={a.principal.name} />
                </span>{' '}
                · {a.principal.role}
              </span>
            ) : (
              <span className="italic">unknown</span>
            )}
          </span>
          <button
            type="button"
            onClick={() => setDetails((shown) => !shown)}
            aria-expanded={details}
            aria-controls={detailsId}
            className="inline-flex items-center gap-0.5 rounded px-1 hover:bg-muted hover:text-fg"
            data-testid="approval-details-toggle"
          >
            {details ? <ChevronDown size={12} aria-hidden /> : <ChevronRight size={12} aria-hidden />}
            Details
          </button>
        </span>
      </div>
      {details && (
        <div
          id={detailsId}
          className="flex flex-col gap-1.5 border-t border-line pt-1.5"
          data-testid="approval-details"
        >
          {a.preview.kind !== 'arguments' && a.preview.kind !== 'text' && (
            <CallPreviewView preview={a.preview} summary={a.summary} compact={false} testId="approval-preview-full" />
          )}
          <p className="flex flex-wrap gap-x-3 text-xs text-fg-muted">
            <span title="What the caller calls itself: a label, not who it is">
              actor{' '}
              <span className="font-mono text-fg">
                <VisibleText text={a.actor ?? '—'} />
              </span>
            </span>
            <span>
              tool call <span className="font-mono text-fg">{escapeInvisible(a.tool_call_id)}</span>
            </span>
            <span title="Trace id" className="font-mono">
              {a.trace_id}
            </span>
            <Link
              href={`/traces/${a.trace_id}`}
              className="text-accent hover:underline"
              data-testid="approval-trace-link"
            >
              trace →
            </Link>
          </p>
          {containsRedacted(a.arguments) && (
            <p className="text-[11px] text-fg-muted">Secrets were redacted before storage; they are never shown.</p>
          )}
          <div className="max-h-72 overflow-auto rounded border border-line bg-subtle/50 px-2 py-1">
            <Arguments value={a.arguments} />
          </div>
        </div>
      )}
      {error && (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-2 py-1 text-xs text-red-800 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200"
          data-testid="approval-error"
        >
          {error}
        </p>
      )}
      {children}
    </li>
  );
}
