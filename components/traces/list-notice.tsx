import { X } from 'lucide-react';
import type { ActionOutcome } from '@/lib/ui/trace-actions';

/** A message over the list (a refused page link, what a row action did), dismissible. */
export function ListNotice({
  notice,
  onDismiss,
}: {
  notice: ActionOutcome & { testId?: string };
  onDismiss: () => void;
}) {
  return (
    <div
      role={notice.ok ? 'status' : 'alert'}
      data-testid={notice.testId ?? 'list-notice'}
      className={`flex items-start justify-between gap-2 rounded border px-2.5 py-1.5 text-xs ${
        notice.ok
          ? 'border-line bg-subtle text-fg'
          : 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200'
      }`}
    >
      <span>{notice.message}</span>
      <button type="button" onClick={onDismiss} className="rounded p-0.5 hover:bg-muted" aria-label="Dismiss">
        <X size={12} aria-hidden />
      </button>
    </div>
  );
}
