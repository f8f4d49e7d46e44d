'use client';

import { useMutation } from '@tanstack/react-query';
import { Pencil, RotateCcw, Zap } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { type ReactNode, useCallback, useEffect, useState } from 'react';
import type { SideEffect } from '@/lib/executor/types';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { type ReplayOutcome, type ReplayRequest, replayTrace } from '@/lib/ui/replay-api';
import { isTypingTarget } from '../shortcuts-dialog';
import { useHydrated } from '../timestamp';
import { compareUrl } from './compare-url';
import { faultOf } from './fault-picker';
import { draftFor, type ReplayDraft, ReplayPanel } from './replay-panel';
import { useArmed } from './use-armed';

const button =
  'inline-flex items-center gap-1 rounded border px-1.5 py-0.5 text-xs disabled:opacity-60 aria-expanded:ring-2 aria-expanded:ring-accent/50';
const plain = `${button} border-line text-fg-muted hover:bg-muted hover:text-fg`;

const Kbd = ({ children }: { children: string }) => (
  <kbd className="ml-0.5 rounded border border-current/30 px-1 font-mono text-[10px] opacity-70">{children}</kbd>
);

/**
 * The trace page's replay actions: **Replay** (`r`: the sealed raw arguments; a call with side
 * effects asks to confirm, `r` again), **Replay with edits** (`e`) and **Replay with fault** (`f`),
 * which open the replay panel. A replay opens the compare view of the call and its replay as soon
 * as it has begun, which follows it live (a slow fault, an approval) until it ends.
 * Returns the buttons (for the header) and the panel (below it).
 */
export function useReplayControls({
  traceId,
  tool,
  sideEffect,
  recorded,
  schema,
  enabled = true,
}: {
  traceId: string;
  tool: string;
  sideEffect: SideEffect | null;
  /** The recorded (redacted) arguments. */
  recorded: unknown;
  schema: JsonSchema | null;
  /** false: no buttons, no panel, no keys (an imported trace cannot run again). */
  enabled?: boolean;
}): { buttons: ReactNode; panel: ReactNode } {
  const router = useRouter();
  // true once hydrated: the keys below listen from then on
  const ready = useHydrated();
  const [draft, setDraft] = useState<ReplayDraft | null>(null);
  const mutation = useMutation<ReplayOutcome, Error, ReplayRequest>({
    mutationFn: (request) => replayTrace(traceId, request),
    onSuccess: (outcome) => {
      if (outcome.ok) router.push(compareUrl(traceId, outcome.traceId));
    },
  });
  const { mutate, reset } = mutation;
  const failed = mutation.data && !mutation.data.ok ? mutation.data : null;

  const replayAsRecorded = useCallback(() => mutate({}), [mutate]);
  // Reads run again at once; a call that writes or executes asks first.
  const quick = useArmed(replayAsRecorded, sideEffect === 'write' || sideEffect === 'exec');
  const open = useCallback(
    (kind: 'edit' | 'fault') => {
      reset();
      quick.disarm();
      setDraft((was) =>
        kind === 'edit'
          ? { args: was?.args ?? draftFor(recorded), fault: was?.fault ?? null }
          : { args: was?.args ?? null, fault: was?.fault ?? faultOf('latency') },
      );
    },
    [recorded, reset, quick.disarm],
  );
  const close = useCallback(() => setDraft(null), []);

  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if (event.key === 'r') {
        event.preventDefault();
        quick.press();
      } else if (event.key === 'e' || event.key === 'f') {
        event.preventDefault();
        open(event.key === 'e' ? 'edit' : 'fault');
        // the panel renders next: focus the first argument, or the fault's kind
        const target =
          event.key === 'e'
            ? '[data-testid="replay-panel"] :is([data-field], [data-testid="edit-json"])'
            : '[data-testid="fault-kind"]';
        requestAnimationFrame(() => document.querySelector<HTMLElement>(target)?.focus());
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [quick.press, open, enabled]);

  const submit = () => {
    if (!draft) return;
    mutate({
      ...(draft.args ? { arguments: draft.args.value } : {}),
      ...(draft.fault ? { fault: draft.fault } : {}),
    });
  };

  const pendingQuick = mutation.isPending && draft === null;
  const buttons = (
    <span
      className="inline-flex flex-wrap items-center gap-1.5"
      data-testid="replay-actions"
      data-ready={ready || undefined}
    >
      <button
        type="button"
        onClick={quick.press}
        disabled={mutation.isPending}
        className={
          quick.armed
            ? `${button} border-amber-400 bg-amber-50 font-medium text-amber-900 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-200`
            : plain
        }
        aria-keyshortcuts="r"
        title={`Run this call again with the same arguments (r)${sideEffect === 'write' || sideEffect === 'exec' ? `: it ${sideEffect === 'write' ? 'writes' : 'executes'} again, so press twice` : ''}`}
        data-testid="replay"
        data-armed={quick.armed || undefined}
      >
        <RotateCcw size={12} aria-hidden />
        {pendingQuick
          ? 'Starting…'
          : quick.armed
            ? `Confirm: ${sideEffect === 'write' ? 'write' : 'run'} again`
            : 'Replay'}
        <Kbd>r</Kbd>
      </button>
      <button
        type="button"
        onClick={() => (draft?.args ? close() : open('edit'))}
        className={plain}
        aria-expanded={Boolean(draft?.args)}
        aria-keyshortcuts="e"
        title="Edit the arguments, then replay (e)"
        data-testid="replay-edit"
      >
        <Pencil size={12} aria-hidden /> Replay with edits <Kbd>e</Kbd>
      </button>
      <button
        type="button"
        onClick={() => (draft?.fault ? close() : open('fault'))}
        className={plain}
        aria-expanded={Boolean(draft?.fault)}
        aria-keyshortcuts="f"
        title="Replay with a fault injected into this replay only (f)"
        data-testid="replay-fault"
      >
        <Zap size={12} aria-hidden /> Replay with fault <Kbd>f</Kbd>
      </button>
      {failed && draft === null && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid="replay-error">
          {failed.message}
        </span>
      )}
    </span>
  );

  const panel = draft ? (
    <ReplayPanel
      tool={tool}
      schema={schema}
      recorded={recorded}
      draft={draft}
      onDraft={setDraft}
      issues={failed?.issues ?? []}
      faultIssues={failed?.faultIssues ?? []}
      busy={mutation.isPending}
      error={failed?.message ?? null}
      onSubmit={submit}
      onClose={close}
    />
  ) : null;

  return enabled ? { buttons, panel } : { buttons: null, panel: null };
}
