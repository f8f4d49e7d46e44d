'use client';

import { Ban, CheckCheck, ShieldCheck, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { alwaysMatchText } from '@/lib/ui/approvals';
import { VisibleText } from '../visible-text';

const secondary =
  'inline-flex items-center gap-1 rounded border border-line px-2 py-1 text-xs text-fg-muted hover:bg-muted hover:text-fg';

/**
 * Deny with a reason: the reason reaches the model in the error message, so the agent can adapt.
 * The textbox takes the focus when it opens (`d`); Enter denies, Shift+Enter is a new line, Esc closes.
 */
export function DenyForm({
  reason,
  onReason,
  busy,
  onSubmit,
  onCancel,
}: {
  reason: string;
  onReason: (reason: string) => void;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
}) {
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <form
      className="flex flex-col gap-1.5 rounded border border-orange-300 bg-bg p-2.5 dark:border-orange-800"
      aria-label="Deny with a reason"
      data-testid="deny-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <label htmlFor={id} className="text-xs text-fg-muted">
        Reason (the model reads it in the error, so say what to do instead)
      </label>
      <textarea
        id={id}
        ref={box}
        value={reason}
        onChange={(event) => onReason(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            onSubmit();
          }
        }}
        rows={2}
        maxLength={2000}
        placeholder="e.g. Do not touch config files; write to notes/ instead."
        className="rounded border border-line bg-bg p-1.5 text-[13px]"
        data-testid="deny-reason"
      />
      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={busy}
          className="inline-flex items-center gap-1 rounded bg-orange-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-orange-800 disabled:opacity-50 dark:bg-orange-600 dark:hover:bg-orange-500"
          data-testid="deny-submit"
        >
          <Ban size={13} aria-hidden />
          {busy ? 'Denying…' : 'Deny'}
        </button>
        <button type="button" onClick={onCancel} className={secondary}>
          <X size={13} aria-hidden />
          Cancel
        </button>
        <span className="text-[11px] text-fg-muted">Enter denies · Shift+Enter new line · Esc closes</span>
      </div>
    </form>
  );
}

/** What "always allow" will create: a rule for the tool, or the tool with a specifier; maybe this session only. */
export interface AlwaysDraft {
  scope: 'tool' | 'specifier';
  specifier: string;
  session: boolean;
}

/**
 * Always allow: creates an allow rule (`tool` or `tool(specifier)`, optionally only in this
 * session) on the server and approves this call. The specifier is prefilled from the arguments.
 */
export function AlwaysAllowForm({
  tool,
  sessionId,
  draft,
  onDraft,
  busy,
  onSubmit,
  onCancel,
}: {
  tool: string;
  sessionId: string | null;
  draft: AlwaysDraft;
  onDraft: (draft: AlwaysDraft) => void;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
}) {
  const id = useId();
  const rule = draft.scope === 'tool' || !draft.specifier.trim() ? tool : `${tool}(${draft.specifier.trim()})`;
  return (
    <form
      className="flex flex-col gap-1.5 rounded border border-emerald-300 bg-bg p-2.5 text-xs dark:border-emerald-800"
      aria-label="Always allow"
      data-testid="always-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <fieldset className="flex flex-col gap-1">
        <legend className="mb-0.5 text-fg-muted">Allow from now on, without asking:</legend>
        <label className="flex items-center gap-1.5">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={draft.scope === 'specifier'}
            onChange={() => onDraft({ ...draft, scope: 'specifier' })}
            data-testid="always-scope-specifier"
          />
          <span className="font-mono">
            <VisibleText text={tool} />(
          </span>
          <input
            aria-label="Specifier"
            value={draft.specifier}
            onChange={(event) => onDraft({ ...draft, scope: 'specifier', specifier: event.target.value })}
            className="h-6 min-w-0 flex-1 rounded border border-line bg-bg px-1 font-mono text-[12px]"
            data-testid="always-specifier"
          />
          <span className="font-mono">)</span>
        </label>
        <label className="flex items-center gap-1.5">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={draft.scope === 'tool'}
            onChange={() => onDraft({ ...draft, scope: 'tool' })}
            data-testid="always-scope-tool"
          />
          every{' '}
          <span className="font-mono">
            <VisibleText text={tool} />
          </span>{' '}
          call, whatever its arguments
        </label>
      </fieldset>
      <label className="flex items-center gap-1.5">
        <input
          type="checkbox"
          checked={draft.session}
          disabled={!sessionId}
          onChange={(event) => onDraft({ ...draft, session: event.target.checked })}
          data-testid="always-session"
        />
        only in this session{' '}
        {sessionId ? (
          <code className="font-mono">
            <VisibleText text={sessionId} />
          </code>
        ) : (
          '(the call has none)'
        )}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="submit"
          disabled={busy}
          className="inline-flex items-center gap-1 rounded bg-emerald-700 px-2.5 py-1 font-medium text-white hover:bg-emerald-800 disabled:opacity-50 dark:bg-emerald-600 dark:hover:bg-emerald-500"
          data-testid="always-submit"
        >
          <ShieldCheck size={13} aria-hidden />
          {busy ? 'Allowing…' : 'Allow and approve'}
        </button>
        <button type="button" onClick={onCancel} className={secondary}>
          <X size={13} aria-hidden />
          Cancel
        </button>
        <span className="text-fg-muted">
          Creates{' '}
          <code className="font-mono text-fg" data-testid="always-preview">
            allow <VisibleText text={rule} />
          </code>
          {draft.session && sessionId ? ' for this session' : ''}, removable on the Policy page.
        </span>
      </div>
      <p className="text-fg-muted" data-testid="always-matches">
        Matches {alwaysMatchText(tool, draft.scope === 'tool' ? null : draft.specifier)}.
      </p>
    </form>
  );
}

/** Which calls a bulk decision takes in: the request's (its batch) or the whole session's. */
export type BulkScope = 'batch' | 'session';

/**
 * One decision for every call of a request (its batch) or of its session, with one reason: the
 * model reads it with each denial. The counts are the calls waiting there; calls made with the
 * viewer's own key are skipped by the server (nobody decides their own calls) and stay.
 */
export function BulkDecisionForm({
  scopes,
  sessionId,
  busy,
  onSubmit,
}: {
  /** Calls each scope takes in; 0: not offered. */
  scopes: { batch: number; session: number };
  sessionId: string | null;
  busy: boolean;
  onSubmit: (decision: 'approve' | 'deny', reason: string, scope: BulkScope) => void;
}) {
  const id = useId();
  const [reason, setReason] = useState('');
  const [chosen, setChosen] = useState<BulkScope>(scopes.batch > 0 ? 'batch' : 'session');
  const scope: BulkScope = scopes[chosen] > 0 ? chosen : scopes.batch > 0 ? 'batch' : 'session';
  const count = scopes[scope];
  const calls = `${count} call${count === 1 ? '' : 's'}`;
  return (
    <form
      className="flex flex-wrap items-center gap-1.5"
      aria-label="Decide them all"
      data-testid="bulk-form"
      data-scope={scope}
      onSubmit={(event) => event.preventDefault()}
    >
      <label htmlFor={`${id}-reason`} className="sr-only">
        One reason for all (the model reads it with a denial)
      </label>
      <input
        id={`${id}-reason`}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        maxLength={2000}
        placeholder="One reason for all (the model reads it with a denial)"
        className="h-6 min-w-48 flex-1 rounded border border-line bg-bg px-1.5 text-[12px]"
        data-testid="bulk-reason"
      />
      {scopes.batch > 0 && scopes.session > 0 ? (
        <select
          aria-label="Which calls"
          value={scope}
          onChange={(event) => setChosen(event.target.value as BulkScope)}
          className="h-6 rounded border border-line bg-bg px-1 text-[12px]"
          data-testid="bulk-scope"
        >
          <option value="batch">this request’s {scopes.batch}</option>
          <option value="session">all {scopes.session} of the session</option>
        </select>
      ) : (
        <span className="text-fg-muted">
          {scope === 'batch' ? (
            'this request’s calls'
          ) : (
            <>
              every call of session{' '}
              <code className="font-mono">
                <VisibleText text={sessionId ?? ''} />
              </code>
            </>
          )}
        </span>
      )}
      <button
        type="button"
        disabled={busy}
        onClick={() => onSubmit('approve', reason.trim(), scope)}
        className="inline-flex items-center gap-1 rounded border border-emerald-700 bg-emerald-700 px-2 py-0.5 font-medium text-white hover:bg-emerald-800 disabled:opacity-50 dark:border-emerald-600 dark:bg-emerald-600 dark:hover:bg-emerald-500"
        data-testid="bulk-approve"
      >
        <CheckCheck size={13} aria-hidden /> Approve all {calls}
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() => onSubmit('deny', reason.trim(), scope)}
        className="inline-flex items-center gap-1 rounded border border-orange-300 px-2 py-0.5 font-medium text-orange-800 hover:bg-orange-50 disabled:opacity-50 dark:border-orange-800 dark:text-orange-300 dark:hover:bg-orange-950/40"
        data-testid="bulk-deny"
      >
        <Ban size={13} aria-hidden /> Deny all {calls}
      </button>
    </form>
  );
}
