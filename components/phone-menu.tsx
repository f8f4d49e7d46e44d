'use client';

import { Menu, X } from 'lucide-react';
import { usePathname } from 'next/navigation';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { useApprovalQueue } from './approvals/approvals-live';

/**
 * The navigation on a phone (below `sm`): a Menu button carrying the number of calls waiting for
 * approval, opening every section as a list under the header. Closes on navigation, Escape and a
 * tap outside. Wider screens show the sections in the bar instead and never this.
 */
export function PhoneMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const { data } = useApprovalQueue();
  const pending = data?.approvals.length ?? 0;

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new path closes the menu.
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  return (
    <div ref={root} className="sm:hidden">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((was) => !was)}
        className="inline-flex items-center gap-1 rounded px-2 py-1 text-fg-muted hover:bg-muted hover:text-fg"
        data-testid="phone-menu-button"
      >
        {open ? <X size={16} aria-hidden /> : <Menu size={16} aria-hidden />}
        <span>Menu</span>
        {pending > 0 && (
          <span
            className="min-w-4 rounded-full bg-amber-500 px-1 text-center text-[11px] font-semibold leading-4 tabular-nums text-black"
            data-testid="phone-approvals-badge"
            data-count={pending}
          >
            {pending > 99 ? '99+' : pending}
            <span className="sr-only"> calls waiting for approval</span>
          </span>
        )}
      </button>
      {open && (
        <div
          id={panelId}
          className="fixed inset-x-0 top-11 z-40 border-b border-line bg-bg px-3 py-2 shadow-lg"
          data-testid="phone-menu"
        >
          <div className="flex flex-col gap-0.5 [&>a]:py-2">{children}</div>
        </div>
      )}
    </div>
  );
}
