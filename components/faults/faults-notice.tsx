'use client';

import { useEffect, useState } from 'react';

/** What an action on the Faults page did, or why it failed. */
export interface Notice {
  ok: boolean;
  text: string;
}

/** How long a notice stays on screen. */
const NOTICE_MS = 5_000;

/** The latest notice, cleared after a few seconds. */
export function useNotice() {
  const [notice, setNotice] = useState<Notice | null>(null);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice]);
  return [notice, setNotice] as const;
}

/** The notice, floating in a corner: the bar and the table never move when one appears. */
export function FaultsNotice({ notice }: { notice: Notice | null }) {
  return (
    <div className="pointer-events-none fixed bottom-4 right-4 z-40" aria-live="polite">
      {notice ? (
        <p
          role="status"
          className={`rounded border px-3 py-1.5 text-[12px] shadow-lg ${
            notice.ok
              ? 'border-line bg-bg text-fg'
              : 'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-300'
          }`}
          data-testid="faults-notice"
        >
          {notice.text}
        </p>
      ) : null}
    </div>
  );
}
