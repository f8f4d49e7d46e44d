'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { isTypingTarget } from '../shortcuts-dialog';
import { FILTER_TEXT_ID } from './trace-filters-bar';

const traceHref = (row: { id: string }) => `/traces/${row.id}`;

/**
 * A list's keys: `/` focuses the search (`searchId`, the traces filter's by default), `j` / `k`
 * move the selection, Enter opens the selected row (`hrefOf`, its trace by default), `p` pauses
 * live updates (when `togglePause` is given). Keys typed into a field are left alone.
 */
export function useListKeys<Row extends { id: string }>({
  rows,
  selected,
  setSelected,
  focusRow,
  togglePause,
  searchId = FILTER_TEXT_ID,
  hrefOf = traceHref,
}: {
  rows: Row[];
  selected: number;
  setSelected: (index: number) => void;
  focusRow: (index: number) => void;
  togglePause?: () => void;
  searchId?: string;
  hrefOf?: (row: Row) => string;
}) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (event.key === '/') {
        event.preventDefault();
        const input = document.getElementById(searchId) as HTMLInputElement | null;
        input?.focus();
        input?.select();
      } else if (event.key === 'j' || event.key === 'k') {
        if (rows.length === 0) return;
        event.preventDefault();
        const next =
          event.key === 'j' ? Math.min(rows.length - 1, selected + 1) : Math.max(0, selected < 0 ? 0 : selected - 1);
        setSelected(next);
        focusRow(next);
      } else if (event.key === 'Enter') {
        if (event.target instanceof HTMLAnchorElement || event.target instanceof HTMLButtonElement) return;
        const row = rows[selected];
        if (row) router.push(hrefOf(row));
      } else if (event.key === 'p' && togglePause) {
        togglePause();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [rows, selected, setSelected, router, focusRow, togglePause, searchId, hrefOf]);
}
