'use client';

import { useCallback, useSyncExternalStore } from 'react';

/** Side by side (`split`) or one column (`unified`). */
export type DiffLayout = 'split' | 'unified';

const KEY = 'toolscope-diff-layout';
const EVENT = 'toolscope-diff-layout';
/** The choice when storage is refused (private mode): it lasts for this page. */
let memory: DiffLayout = 'split';

function read(): DiffLayout {
  try {
    const stored = localStorage.getItem(KEY);
    return stored === 'unified' || stored === 'split' ? stored : memory;
  } catch {
    return memory;
  }
}

function subscribe(onChange: () => void) {
  window.addEventListener(EVENT, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(EVENT, onChange);
    window.removeEventListener('storage', onChange);
  };
}

/**
 * The diff layout, remembered in this browser (localStorage) and shared by every diff on the page
 * and in other tabs. The server renders side by side.
 */
export function useDiffLayout(): [DiffLayout, (layout: DiffLayout) => void] {
  const layout = useSyncExternalStore(subscribe, read, () => 'split' as const);
  const set = useCallback((next: DiffLayout) => {
    memory = next;
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // storage refused: `memory` keeps the choice
    }
    window.dispatchEvent(new Event(EVENT));
  }, []);
  return [layout, set];
}
