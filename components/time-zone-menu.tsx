'use client';

import { Check, Clock } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { formatUtcOffset } from '@/lib/ui/format';
import { isValidTimeZone, runtimeTimeZone, type TimeZoneChoice } from '@/lib/ui/time-zone';
import { useTimeZone } from './time-zone-provider';

interface Option {
  key: string;
  choice: TimeZoneChoice;
  label: string;
  detail: string;
}

/**
 * The header's `UTC±hh` label: the one zone every time on the page is shown in. Its menu picks
 * UTC, the server's zone (the default) or this browser's zone, kept in a cookie.
 */
export function TimeZoneMenu() {
  const { choice, zone, serverZone, now, setChoice } = useTimeZone();
  const [open, setOpen] = useState(false);
  const [browserZone, setBrowserZone] = useState<string | null>(null);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);

  // The browser's zone is read after hydration only: the server cannot know it.
  useEffect(() => {
    const detected = runtimeTimeZone();
    setBrowserZone(isValidTimeZone(detected) ? detected : null);
  }, []);

  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const label = formatUtcOffset(now, zone);
  const options: Option[] = [
    { key: 'utc', choice: { kind: 'utc' }, label: 'UTC', detail: 'the same for everyone' },
    { key: 'server', choice: { kind: 'server' }, label: 'Server’s zone', detail: zoneDetail(serverZone, now) },
  ];
  // The browser's zone is offered only when it is a different choice from the two above.
  if (browserZone && browserZone !== serverZone && browserZone !== 'UTC') {
    options.push({
      key: `fixed:${browserZone}`,
      choice: { kind: 'fixed', zone: browserZone },
      label: 'This browser’s zone',
      detail: zoneDetail(browserZone, now),
    });
  }
  const currentKey = choice.kind === 'fixed' ? `fixed:${choice.zone}` : choice.kind;
  if (choice.kind === 'fixed' && choice.zone !== browserZone) {
    options.push({ key: currentKey, choice, label: 'Fixed zone', detail: zoneDetail(choice.zone, now) });
  }

  return (
    <div ref={root} className="relative">
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen(!open)}
        data-testid="time-zone-label"
        title={`Times are shown in ${zone} (${label}). Click to change.`}
        className="inline-flex items-center gap-1 rounded border border-line px-2 py-1 font-mono text-xs text-fg-muted tabular-nums hover:bg-muted hover:text-fg"
      >
        <Clock size={13} aria-hidden />
        {label}
      </button>
      {open && (
        <div
          id={menuId}
          role="menu"
          aria-label="Show times in"
          className="absolute right-0 top-full z-40 mt-1 w-72 rounded border border-line bg-bg p-1 shadow-lg"
          data-testid="time-zone-menu"
        >
          <p className="px-2 py-1 text-[11px] uppercase tracking-wide text-fg-muted">Show times in</p>
          {options.map((option) => {
            const checked = option.key === currentKey;
            return (
              <button
                key={option.key}
                type="button"
                role="menuitemradio"
                aria-checked={checked}
                className="flex w-full items-start gap-2 rounded px-2 py-1 text-left hover:bg-muted focus-visible:bg-muted"
                onClick={() => {
                  setOpen(false);
                  if (!checked) setChoice(option.choice);
                }}
              >
                <Check size={13} aria-hidden className={`mt-0.5 shrink-0 ${checked ? '' : 'invisible'}`} />
                <span className="flex flex-col">
                  <span>{option.label}</span>
                  <span className="font-mono text-[11px] text-fg-muted">{option.detail}</span>
                </span>
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}

function zoneDetail(zone: string, now: number): string {
  const offset = formatUtcOffset(now, zone);
  return zone === 'UTC' || zone === offset ? offset : `${zone} (${offset})`;
}
