'use client';

import { Check, Copy } from 'lucide-react';
import { useState } from 'react';

/** Copies text to the clipboard; falls back to a hidden textarea where the Clipboard API is unavailable (plain http). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

/**
 * Copies `text` (or what `getText` returns at click time) and says so for two seconds.
 * The label is the accessible name; `compact` shows the icon only.
 */
export function CopyButton({
  text,
  getText,
  label,
  compact = false,
  testId,
}: {
  text?: string;
  getText?: () => string;
  label: string;
  compact?: boolean;
  testId?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onClick = async () => {
    try {
      await copyText(getText ? getText() : (text ?? ''));
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  const Icon = state === 'copied' ? Check : Copy;
  return (
    <button
      type="button"
      onClick={onClick}
      data-testid={testId}
      aria-label={compact ? label : undefined}
      title={label}
      className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
    >
      <Icon size={12} aria-hidden />
      {!compact && <span>{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}</span>}
      <span className="sr-only" aria-live="polite">
        {compact && state === 'copied' ? 'Copied' : ''}
      </span>
    </button>
  );
}
