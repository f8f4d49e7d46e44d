'use client';

import { Lock, Play, X } from 'lucide-react';
import { useMemo } from 'react';
import type { FieldIssue } from '@/lib/ui/json-issues';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { maskedValues } from '@/lib/ui/kept-as-recorded';
import type { ReplayFault } from '@/lib/ui/replay-api';
import { type ArgumentsDraft, ArgumentsEditor } from '../tools/arguments-editor';
import { FaultPicker, faultOf } from './fault-picker';

export interface ReplayDraft {
  /** Edited arguments; null: replay the sealed raw arguments as they were. */
  args: ArgumentsDraft | null;
  /** A one-off fault; null: none. */
  fault: ReplayFault | null;
}

const check = 'inline-flex items-center gap-1 text-xs';

/** The masked values of the edit: kept as recorded, or refused because they were edited around the mask. */
function MaskedNote({ edited, shown }: { edited: unknown; shown: unknown }) {
  const masked = useMemo(() => maskedValues(edited, shown), [edited, shown]);
  if (masked.length === 0) return null;
  const kept = masked.filter((m) => m.kept);
  const broken = masked.filter((m) => !m.kept);
  return (
    <div className="flex flex-col gap-0.5 text-[11px]" data-testid="replay-masked">
      {kept.length > 0 && (
        <p className="flex flex-wrap items-center gap-1 text-amber-800 dark:text-amber-300">
          <Lock size={10} aria-hidden /> Kept as recorded (masked here, the real value is replayed, only to where it was
          sent):
          {kept.map((m) => (
            <code key={m.path} className="font-mono">
              {m.path || '(arguments)'}
            </code>
          ))}
        </p>
      )}
      {broken.length > 0 && (
        <p className="text-red-700 dark:text-red-300">
          Edited around the mask, so it would be refused — leave the value as shown or type the whole value:{' '}
          {broken.map((m) => (
            <code key={m.path} className="mr-1 font-mono">
              {m.path || '(arguments)'}
            </code>
          ))}
        </p>
      )}
    </div>
  );
}

/**
 * "Replay with edits" / "Replay with fault": the recorded (redacted) arguments in the schema form,
 * masked secrets kept as recorded unless a new value is typed, and/or a fault for this replay only.
 * Enter in a field or the button replays; Esc closes.
 */
export function ReplayPanel({
  tool,
  schema,
  recorded,
  draft,
  onDraft,
  issues,
  faultIssues,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  tool: string;
  schema: JsonSchema | null;
  /** The recorded (redacted) arguments, which prefill the edit. */
  recorded: unknown;
  draft: ReplayDraft;
  onDraft: (draft: ReplayDraft) => void;
  issues: FieldIssue[];
  faultIssues: FieldIssue[];
  busy: boolean;
  error: string | null;
  onSubmit: () => void;
  onClose: () => void;
}) {
  const { args, fault } = draft;
  const nothing = !args && !fault;
  return (
    <form
      className="flex flex-col gap-2 rounded border border-blue-300 bg-bg p-2.5 dark:border-blue-800"
      aria-label={`Replay ${tool}`}
      data-testid="replay-panel"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!busy && !args?.jsonError) onSubmit();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h2 className="text-sm font-semibold">
          Replay <span className="font-mono">{tool}</span>
        </h2>
        <label className={check}>
          <input
            type="checkbox"
            checked={args !== null}
            onChange={(event) => onDraft({ ...draft, args: event.target.checked ? draftFor(recorded) : null })}
            data-testid="replay-with-edits"
          />
          Edit the arguments
        </label>
        <label className={check}>
          <input
            type="checkbox"
            checked={fault !== null}
            onChange={(event) => onDraft({ ...draft, fault: event.target.checked ? faultOf('latency') : null })}
            data-testid="replay-with-fault"
          />
          Inject a fault
        </label>
        <button
          type="button"
          onClick={onClose}
          className="ml-auto rounded p-1 text-fg-muted hover:bg-muted hover:text-fg"
          aria-label="Close (Esc)"
          title="Close (Esc)"
        >
          <X size={14} aria-hidden />
        </button>
      </div>
      {args ? (
        <>
          <ArgumentsEditor
            idPrefix="replay"
            tool={tool}
            schema={schema}
            draft={args}
            onDraft={(next) => onDraft({ ...draft, args: next })}
            serverIssues={issues}
          />
          {!args.jsonError && <MaskedNote edited={args.value} shown={recorded} />}
        </>
      ) : (
        <p className="text-xs text-fg-muted">
          Arguments: exactly as the model sent them (the sealed originals, secrets included, opened on the server).
        </p>
      )}
      {fault && (
        <FaultPicker fault={fault} onFault={(next) => onDraft({ ...draft, fault: next })} serverIssues={faultIssues} />
      )}
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="submit"
          disabled={busy || Boolean(args?.jsonError)}
          className="inline-flex items-center gap-1 rounded bg-accent px-2.5 py-1 text-xs font-medium text-white disabled:opacity-50 dark:text-black"
          data-testid="replay-submit"
        >
          <Play size={12} aria-hidden />
          {busy ? 'Starting…' : nothing ? 'Replay as recorded' : 'Replay'}
        </button>
        <span className="text-[11px] text-fg-muted">
          A new call through the whole pipeline (validation, policy and approval, faults, retries), in a session of its
          own; the comparison opens at once and follows it live.
        </span>
      </div>
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid="replay-error">
          {error}
        </p>
      )}
    </form>
  );
}

/** The edit of the recorded arguments; arguments that never parsed are edited as JSON text. */
export function draftFor(recorded: unknown): ArgumentsDraft {
  if (typeof recorded !== 'string') {
    return { mode: 'form', value: recorded, text: JSON.stringify(recorded, null, 2), jsonError: null };
  }
  try {
    return { mode: 'json', value: JSON.parse(recorded), text: recorded, jsonError: null };
  } catch (error) {
    return { mode: 'json', value: recorded, text: recorded, jsonError: (error as Error).message };
  }
}
