'use client';

import { Keyboard, X } from 'lucide-react';
import { useEffect, useRef } from 'react';

/** Whether a key press is typing into a field (shortcuts stay out of the way then). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

const GROUPS: { title: string; keys: [string[], string][] }[] = [
  {
    title: 'Everywhere',
    keys: [
      [['?'], 'Show this list'],
      [['Esc'], 'Close a dialog or menu, leave a field'],
    ],
  },
  {
    title: 'Traces list',
    keys: [
      [['j', 'k'], 'Next / previous call'],
      [['Enter'], 'Open the selected call'],
      [['/'], 'Search'],
      [['p'], 'Pause or resume live updates'],
    ],
  },
  {
    title: 'Sessions',
    keys: [
      [['/'], 'Search session ids (list)'],
      [['j', 'k'], 'Next / previous session, or call on a session view'],
      [['Enter'], 'Open the selected session or call'],
      [['-', '0'], 'Session timeline: zoom out / whole session (drag across it to zoom in)'],
    ],
  },
  {
    title: 'Trace page',
    keys: [
      [['['], 'Newer call'],
      [[']'], 'Older call'],
      [['c'], 'Cancel a running call'],
      [['r'], 'Replay it as recorded (twice if it writes or executes)'],
      [['e'], 'Replay with edited arguments'],
      [['f'], 'Replay with a fault'],
    ],
  },
  {
    title: 'Compare views',
    keys: [
      [['v'], 'Side by side / unified diff'],
      [['j', 'k'], 'Next / previous pair (session replay)'],
      [['o'], 'Only changed pairs (session replay)'],
    ],
  },
  {
    title: 'Approvals',
    keys: [
      [['j', 'k'], 'Next / previous pending call'],
      [['a'], 'Approve the selected call'],
      [['Shift', 'A'], 'Yes, and don’t ask again: approve it and allow exactly such calls (the rule is on the card)'],
      [['e'], 'Edit its arguments, then approve'],
      [['d'], 'Deny it (type the reason)'],
    ],
  },
  {
    title: 'Import',
    keys: [[['o'], 'Choose an export file to import']],
  },
  {
    title: 'Faults',
    keys: [
      [['n'], 'New fault rule'],
      [['/'], 'Filter the rules'],
      [['j', 'k'], 'Next / previous rule'],
      [['e'], 'Edit the selected rule'],
      [['t'], 'Enable or disable it'],
      [['d'], 'Delete it (asks first)'],
    ],
  },
  {
    title: 'Large text (output, stdout, stderr)',
    keys: [
      [['Enter'], 'Next match (in the find box)'],
      [['Shift', 'Enter'], 'Previous match'],
    ],
  },
];

/**
 * The keyboard shortcuts, opened with `?` on every page or the header's keyboard button; Esc closes.
 * A native modal <dialog>: focus is trapped and restored by the browser.
 */
export function ShortcutsDialog() {
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '?' || event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      event.preventDefault();
      const el = dialog.current;
      if (el && !el.open) el.showModal();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return (
    <>
      <button
        type="button"
        onClick={() => dialog.current?.showModal()}
        className="inline-flex items-center rounded border border-line px-1.5 py-1 text-fg-muted hover:bg-muted hover:text-fg"
        aria-label="Keyboard shortcuts (?)"
        title="Keyboard shortcuts (?)"
        data-testid="shortcuts-button"
        data-keyboard-hint
      >
        <Keyboard size={14} aria-hidden />
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts-dialog"
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-md border border-line bg-bg p-0 text-fg shadow-xl backdrop:bg-black/40"
        onClick={(event) => {
          // a click on the backdrop (the dialog element itself, outside its content) closes it
          if (event.target === event.currentTarget) event.currentTarget.close();
        }}
        onKeyDown={(event) => event.stopPropagation()}
      >
        <div className="flex items-center justify-between border-b border-line px-4 py-2">
          <h2 id="shortcuts-title" className="text-sm font-semibold">
            Keyboard shortcuts
          </h2>
          <button
            type="button"
            onClick={() => dialog.current?.close()}
            className="rounded p-1 text-fg-muted hover:bg-muted hover:text-fg"
            aria-label="Close"
          >
            <X size={14} aria-hidden />
          </button>
        </div>
        <div className="flex flex-col gap-3 px-4 py-3">
          {GROUPS.map((group) => (
            <section key={group.title}>
              <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-fg-muted">{group.title}</h3>
              <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-1">
                {group.keys.map(([keys, what]) => (
                  <div key={what} className="contents">
                    <dt className="flex items-center gap-1">
                      {keys.map((key) => (
                        <kbd
                          key={key}
                          className="min-w-5 rounded border border-line bg-subtle px-1 text-center font-mono text-[11px]"
                        >
                          {key}
                        </kbd>
                      ))}
                    </dt>
                    <dd>{what}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </div>
      </dialog>
    </>
  );
}
