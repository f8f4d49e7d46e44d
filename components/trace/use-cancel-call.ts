'use client';

import { useCallback, useRef, useState } from 'react';
import type { TraceJson } from '@/lib/ui/trace-from-json';
import { NOT_REACHABLE } from '@/lib/ui/unreachable';

export type CancelState = { phase: 'idle' } | { phase: 'cancelling' } | { phase: 'failed'; message: string };

/**
 * Cancels a running call through `POST /api/v1/traces/:id/cancel` (as the viewer), and hands the
 * recorded (cancelled) trace to `onCancelled`. A call that ended meanwhile (409) is not an error
 * to show: the view refetches and shows how it ended.
 */
export function useCancelCall(traceId: string, onCancelled: (trace: TraceJson | null) => void) {
  const [state, setState] = useState<CancelState>({ phase: 'idle' });
  const busy = useRef(false);
  const cancel = useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    setState({ phase: 'cancelling' });
    try {
      const response = await fetch(`/api/v1/traces/${encodeURIComponent(traceId)}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'Cancelled from the trace page' }),
      });
      if (response.ok) {
        onCancelled((await response.json()) as TraceJson);
        setState({ phase: 'idle' });
      } else if (response.status === 409) {
        onCancelled(null);
        setState({ phase: 'idle' });
      } else {
        const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
        setState({ phase: 'failed', message: body?.error?.message ?? `HTTP ${response.status}` });
      }
    } catch {
      setState({ phase: 'failed', message: `Not cancelled — ${NOT_REACHABLE}.` });
    } finally {
      busy.current = false;
    }
  }, [traceId, onCancelled]);
  return { cancel, state };
}
