'use client';

import { useMutation } from '@tanstack/react-query';
import { ListRestart } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useCallback } from 'react';
import { replaySession } from '@/lib/ui/replay-api';
import { useMay } from '../access/viewer';
import { sessionCompareUrl } from './compare-url';
import { useArmed } from './use-armed';

/**
 * "Replay session": reruns every call of the session, in recorded order, into a new session
 * (`POST /api/v1/sessions/:id/replay`), then opens the session comparison. Side effects run again
 * (through the policy and the approval queue), so the first press asks to confirm.
 */
export function SessionReplayButton({ sessionId, className = '' }: { sessionId: string; className?: string }) {
  const mayReplay = useMay('calls.replay');
  const router = useRouter();
  const mutation = useMutation({
    mutationFn: () => replaySession(sessionId),
    onSuccess: (outcome) => {
      if (outcome.ok) router.push(sessionCompareUrl(sessionId, outcome.sessionId));
    },
  });
  const { mutate } = mutation;
  const { armed, press } = useArmed(
    useCallback(() => mutate(), [mutate]),
    true,
  );
  const failed = mutation.data && !mutation.data.ok ? mutation.data.message : null;
  if (!mayReplay) return null;
  return (
    <span className={`inline-flex flex-wrap items-center gap-1.5 ${className}`}>
      <button
        type="button"
        onClick={press}
        disabled={mutation.isPending}
        className={`inline-flex items-center gap-1 rounded border px-1.5 py-0.5 text-xs disabled:opacity-60 ${armed ? 'border-amber-400 bg-amber-50 font-medium text-amber-900 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-200' : 'border-line text-fg-muted hover:bg-muted hover:text-fg'}`}
        title="Run every call of this session again, in recorded order, into a new session; then compare the two"
        data-testid="replay-session"
        data-armed={armed || undefined}
      >
        <ListRestart size={12} aria-hidden />
        {mutation.isPending ? 'Replaying session…' : armed ? 'Confirm: rerun every call' : 'Replay session'}
      </button>
      {failed && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid="replay-session-error">
          {failed}
        </span>
      )}
    </span>
  );
}
