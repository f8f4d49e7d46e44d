'use client';

import { useEffect, useRef } from 'react';

const PREFIX = 'toolscope:list-selection:';

function read(key: string): string | null {
  try {
    return sessionStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

/**
 * Keeps the list's selected row across a visit to a trace and back: the selected trace id is kept
 * in sessionStorage under the filters (`key`), and restored — selected, focused, scrolled into
 * view — when the list mounts again with that row on it.
 */
export function useKeptSelection({
  key,
  ids,
  selectedId,
  restore,
}: {
  key: string;
  ids: string[];
  selectedId: string | null;
  restore: (index: number) => void;
}) {
  const restored = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: restores once, on mount, from the first page rendered
  useEffect(() => {
    if (restored.current) return;
    restored.current = true;
    const id = read(key);
    const index = id ? ids.indexOf(id) : -1;
    if (index >= 0) restore(index);
  }, []);

  useEffect(() => {
    if (!restored.current || selectedId === null) return;
    try {
      sessionStorage.setItem(PREFIX + key, selectedId);
    } catch {
      // storage unavailable: the selection lasts for this visit only
    }
  }, [key, selectedId]);
}
