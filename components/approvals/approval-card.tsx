'use client';

import { Check, Pencil, ShieldCheck, X } from 'lucide-react';
import Link from 'next/link';
import { memo, type ReactNode } from 'react';
import type { SideEffect } from '@/lib/executor/types';
import type { PendingApprovalJson } from '@/lib/ui/approvals';
import { containsInvisible, escapeInvisible } from '@/lib/ui/invisible-characters';
import { containsRedacted } from '@/lib/ui/json-issues';
import { SideEffectLabel } from '../tools/policy-badge';
import { JsonTree } from '../trace/json-tree';
import { VisibleText } from '../visible-text';
import { WaitTimers } from './wait-timers';

export type PanelKind = 'edit' | 'deny' | 'always';

/** Whether the viewer may decide a call: yes, not with their role, or not their own call. */
export type Decidable = 'yes' | 'role' | 'self';

const button =
  'inline-flex items-center gap-1 rounded border px-2 py-0.5 text-xs font-medium disabled:opacity-50 aria-expanded:ring-2 aria-expanded:ring-accent/50';

const Kbd = ({ children }: { children: string }) => (
  <kbd className="ml-0.5 rounded border border-current/30 px-1 font-mono text-[10px] opacity-70">{children}</kbd>
);

/** The call's arguments: memoized, as the card re-renders with its panels. */
const Arguments = memo(function Arguments({ value }: { value: unknown }) {
  return (
    <div className="max-h-72 overflow-auto rounded border border-line bg-subtle/50 px-2 py-1">
      {typeof value === 'string' ? (
        <pre className="whitespace-pre-wrap break-all font-mono text-[12px]" data-testid="approval-arguments">
          <VisibleText text={value} lines />
        </pre>
      ) : (
        <JsonTree value={value} expandDepth={2} label="Arguments" testId="approval-arguments" />
      )}
    </div>
  );
});

/**
 * One call waiting for a person: what it is (tool, side effect, session, actor, the rule that
 * asked), how long it has waited and when it expires, its redacted arguments, the decisions, and
 * the open decision form (`panel`) below them.
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
  onOpen: (kind: PanelKind) => void;
  children?: ReactNode;
}) {
  const a = approval;
  const headingId = `approval-${a.trace_id}`;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: selection by keyboard is j/k on the page; the buttons inside are focusable
    <li
      aria-labelledby={headingId}
      aria-current={selected ? 'true' : undefined}
      data-testid="approval"
      data-trace-id={a.trace_id}
      data-selected={selected || undefined}
      onClick={onSelect}
      className={`flex scroll-mt-14 flex-col gap-2 rounded border bg-bg p-2.5 ${selected ? 'border-accent ring-1 ring-accent' : 'border-line'}`}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h2 id={headingId} className="font-mono text-sm font-semibold">
          <VisibleText text={a.tool} />
        </h2>
        <span className="text-xs text-fg-muted">
          side effect <SideEffectLabel effect={a.side_effect as SideEffect} />
        </span>
        <span
          className="rounded border border-amber-300 px-1 text-[11px] text-amber-800 dark:border-amber-800 dark:text-amber-300"
          title="The rule or default that asked for approval"
          data-testid="approval-rule"
        >
          <VisibleText text={a.rule} />
        </span>
        <span className="text-xs text-fg-muted">
          session{' '}
          {a.session_id ? (
            <Link href={`/?session=${encodeURIComponent(a.session_id)}`} className="font-mono text-fg hover:underline">
              <VisibleText text={a.session_id} />
            </Link>
          ) : (
            <span className="italic">none</span>
          )}
        </span>
        <span className="text-xs text-fg-muted" data-testid="approval-principal">
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
        <span className="text-xs text-fg-muted" title="What the caller calls itself: a label, not who it is">
          actor{' '}
          <span className="font-mono text-fg">
            <VisibleText text={a.actor ?? '—'} />
          </span>
        </span>
        <Link
          href={`/traces/${a.trace_id}`}
          className="text-xs text-accent hover:underline"
          data-testid="approval-trace-link"
        >
          trace →
        </Link>
        <span className="ml-auto">
          <WaitTimers
            requestedAt={Date.parse(a.requested_at ?? '')}
            expiresAt={a.expires_at ? Date.parse(a.expires_at) : null}
            skewMs={skewMs}
          />
        </span>
      </div>
      {containsRedacted(a.arguments) && (
        <p className="text-[11px] text-fg-muted">Secrets were redacted before storage; they are never shown.</p>
      )}
      {(containsInvisible(a.arguments) || containsInvisible(a.tool)) && (
        <p className="text-[11px] text-red-800 dark:text-red-200" data-testid="approval-invisible">
          This call holds invisible or control characters, shown as marked escapes such as{' '}
          <code className="font-mono">\u202E</code>: what runs holds the characters themselves.
        </p>
      )}
      <Arguments value={a.arguments} />
      {decidable !== 'yes' && (
        <p className="text-xs text-fg-muted" data-testid="approval-undecidable" data-reason={decidable}>
          {decidable === 'self'
            ? 'You made this call with your key: another reviewer must approve or deny it.'
            : 'Your role cannot decide approvals: a reviewer or an admin must.'}
          <span className="ml-2 font-mono text-[11px]">{a.trace_id}</span>
        </p>
      )}
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
          <span className="ml-auto font-mono text-[11px] text-fg-muted" title="Trace id">
            {a.trace_id}
          </span>
        </fieldset>
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
