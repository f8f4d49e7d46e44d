'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import type { Neighbours } from './trace-header';

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** The trace page's keys: `[` the newer call, `]` the older one, `c` cancels (when `onCancel` is given). */
export function useTraceKeys({ neighbours, onCancel }: { neighbours: Neighbours; onCancel?: () => void }) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      const target = event.key === '[' ? neighbours.newer : event.key === ']' ? neighbours.older : undefined;
      if (target) {
        event.preventDefault();
        router.push(`/traces/${encodeURIComponent(target)}`);
      } else if (event.key === 'c' && onCancel) {
        event.preventDefault();
        onCancel();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [neighbours.newer, neighbours.older, onCancel, router]);
}
