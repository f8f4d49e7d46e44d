'use client';

import { ChartGantt, CircleStop, Copy, Ellipsis, ExternalLink, Trash2 } from 'lucide-react';
import Link from 'next/link';
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { CallStatus } from '@/lib/executor/types';
import { type ActionOutcome, cancelTrace, deleteSession, deleteTrace } from '@/lib/ui/trace-actions';
import { useMay } from '../access/viewer';
import { copyText } from '../copy-button';
import { VisibleText } from '../visible-text';
import { type MenuPosition, menuPosition } from './menu-position';

type Confirm = null | 'trace' | 'session';

const item =
  'flex w-full items-center gap-2 rounded px-2 py-1 text-left text-[13px] hover:bg-muted focus-visible:bg-muted focus-visible:outline-none';

/**
 * The ⋯ menu of a list row: open, copy the trace id, cancel (running or waiting calls), delete the
 * call or its session's calls (each after a confirmation step). Keyboard: Enter/Space opens,
 * arrows move, Esc closes and returns focus to the button. Fixed-positioned so the table's
 * scrolling box never clips it, and kept inside the viewport (`menuPosition`).
 */
export function RowMenu({
  traceId,
  tool,
  status,
  sessionId,
  onDone,
}: {
  traceId: string;
  tool: string;
  status: CallStatus;
  sessionId: string | null;
  onDone: (outcome: ActionOutcome) => void;
}) {
  const [open, setOpen] = useState(false);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [busy, setBusy] = useState(false);
  const [position, setPosition] = useState<MenuPosition>({ top: 0, left: 0, maxHeight: 0 });
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const mayCancel = useMay('calls.cancel');
  const mayDelete = useMay('calls.delete');
  const cancellable = mayCancel && (status === 'running' || status === 'awaiting_approval');

  const close = useCallback((refocus = true) => {
    setOpen(false);
    setConfirm(null);
    if (refocus) button.current?.focus();
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the confirmation step changes the menu's height
  useLayoutEffect(() => {
    if (!open || !button.current || !menu.current) return;
    const viewport = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
    const size = { width: menu.current.offsetWidth, height: menu.current.scrollHeight };
    setPosition(menuPosition(button.current.getBoundingClientRect(), size, viewport));
  }, [open, confirm]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves to the first item of each step
  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"],button')?.focus();
    const onDown = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) close(false);
    };
    const onScroll = () => close(false);
    document.addEventListener('mousedown', onDown);
    window.addEventListener('scroll', onScroll, true);
    window.addEventListener('resize', onScroll);
    return () => {
      document.removeEventListener('mousedown', onDown);
      window.removeEventListener('scroll', onScroll, true);
      window.removeEventListener('resize', onScroll);
    };
  }, [open, confirm, close]);

  const run = async (action: () => Promise<ActionOutcome>) => {
    setBusy(true);
    const outcome = await action();
    setBusy(false);
    close();
    onDone(outcome);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // keys stay inside the menu: j/k/Enter/p of the list must not act behind it
    event.stopPropagation();
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
      return;
    }
    if (event.key === 'Tab') {
      close(false);
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp' && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"],button') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? items.length - 1
          : (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Actions for ${tool} call`}
        title="Actions"
        data-testid="row-menu-button"
        onClick={() => (open ? close() : setOpen(true))}
        className="inline-flex size-6 items-center justify-center rounded text-fg-muted hover:bg-muted hover:text-fg"
      >
        <Ellipsis size={15} aria-hidden />
      </button>
      {open && (
        <div
          ref={menu}
          role="menu"
          aria-label={`Actions for ${tool} call`}
          data-testid="row-menu"
          onKeyDown={onKeyDown}
          style={{ top: position.top, left: position.left, maxHeight: position.maxHeight || undefined }}
          className="fixed z-40 w-64 max-w-[calc(100vw-8px)] overflow-y-auto rounded border border-line bg-bg p-1 text-fg shadow-lg"
        >
          {confirm ? (
            <div className="flex flex-col gap-2 p-1.5" data-testid="row-menu-confirm">
              <p className="text-[13px]">
                {confirm === 'trace' ? (
                  'Delete this call? Its trace is gone for good.'
                ) : (
                  <>
                    Delete every finished call of session{' '}
                    <code className="font-mono break-all">
                      <VisibleText text={sessionId ?? ''} />
                    </code>
                    ? Running calls are kept.
                  </>
                )}
              </p>
              <div className="flex justify-end gap-1.5">
                <button
                  type="button"
                  className="rounded border border-line px-2 py-0.5 hover:bg-muted"
                  onClick={() => close()}
                >
                  Keep
                </button>
                <button
                  type="button"
                  disabled={busy}
                  data-testid="row-menu-confirm-delete"
                  className="rounded border border-red-400 bg-red-600 px-2 py-0.5 text-white hover:bg-red-700 disabled:opacity-60"
                  onClick={() =>
                    run(() => (confirm === 'trace' ? deleteTrace(traceId) : deleteSession(sessionId ?? '')))
                  }
                >
                  {busy ? 'Deleting…' : 'Delete'}
                </button>
              </div>
            </div>
          ) : (
            <>
              <Link role="menuitem" href={`/traces/${traceId}`} className={item} onClick={() => close(false)}>
                <ExternalLink size={13} aria-hidden /> Open
              </Link>
              {sessionId && (
                <Link
                  role="menuitem"
                  href={`/sessions/${encodeURIComponent(sessionId)}`}
                  className={item}
                  data-testid="row-menu-session"
                  onClick={() => close(false)}
                >
                  <ChartGantt size={13} aria-hidden /> Open the session view
                </Link>
              )}
              <button
                type="button"
                role="menuitem"
                className={item}
                onClick={() =>
                  run(async () => {
                    try {
                      await copyText(traceId);
                      return { ok: true, message: `Copied trace id ${traceId}.` };
                    } catch {
                      return { ok: false, message: 'Could not copy: the clipboard is not available.' };
                    }
                  })
                }
              >
                <Copy size={13} aria-hidden /> Copy trace id
              </button>
              {cancellable && (
                <button
                  type="button"
                  role="menuitem"
                  className={item}
                  data-testid="row-menu-cancel"
                  disabled={busy}
                  onClick={() => run(() => cancelTrace(traceId))}
                >
                  <CircleStop size={13} aria-hidden /> Cancel the call
                </button>
              )}
              {mayDelete && <div className="my-1 border-t border-line" />}
              {mayDelete && (
                <button
                  type="button"
                  role="menuitem"
                  className={`${item} text-red-700 dark:text-red-300`}
                  data-testid="row-menu-delete"
                  onClick={() => setConfirm('trace')}
                >
                  <Trash2 size={13} aria-hidden /> Delete…
                </button>
              )}
              {mayDelete && sessionId && (
                <button
                  type="button"
                  role="menuitem"
                  className={`${item} text-red-700 dark:text-red-300`}
                  data-testid="row-menu-delete-session"
                  onClick={() => setConfirm('session')}
                >
                  <Trash2 size={13} aria-hidden /> Delete this session’s calls…
                </button>
              )}
            </>
          )}
        </div>
      )}
    </>
  );
}
