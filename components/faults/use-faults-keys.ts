'use client';

import { useEffect, useRef } from 'react';
import { isTypingTarget } from '../shortcuts-dialog';

/** What the Faults page's keys do; each is called with the focus outside any field. */
export interface FaultsKeys {
  /** `n` */
  create: () => void;
  /** `/` */
  filter: () => void;
  /** `j` (+1) / `k` (-1) */
  move: (step: 1 | -1) => void;
  /** `e` */
  edit: () => void;
  /** `t` */
  toggle: () => void;
  /** `d` or Delete */
  remove: () => void;
  /** Escape */
  dismiss: () => void;
}

/**
 * The Faults page's keyboard: `n` new rule, `/` filter, `j`/`k` select, `e` edit, `t` switch on or
 * off, `d` delete (asks first), Escape closes. Keys typed into a field, with a modifier, or under an
 * open dialog are left alone. The latest handlers are used without re-subscribing.
 */
export function useFaultsKeys(keys: FaultsKeys) {
  const latest = useRef(keys);
  latest.current = keys;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || event.shiftKey) return;
      if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      const k = latest.current;
      const actions: Record<string, () => void> = {
        n: k.create,
        '/': k.filter,
        j: () => k.move(1),
        k: () => k.move(-1),
        e: k.edit,
        t: k.toggle,
        d: k.remove,
        delete: k.remove,
        escape: k.dismiss,
      };
      const action = actions[event.key.length === 1 ? event.key : event.key.toLowerCase()];
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
