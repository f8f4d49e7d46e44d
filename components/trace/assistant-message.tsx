'use client';

import { Bot, ChevronDown, ChevronUp } from 'lucide-react';
import { useState } from 'react';
import type { AssistantMessageJson } from '@/lib/calls/assistant-message';
import { MarkedText } from './text-marks';

/** Characters shown before "Show all": a long turn stays out of the way of the call it explains. */
export const ASSISTANT_PREVIEW_CHARS = 600;

/**
 * What the model said with this call's request (`assistant_message`): its text, redacted, with
 * the model's name; a long text is collapsed to its start. Shared by every call of the batch.
 */
export function AssistantMessage({ message }: { message: AssistantMessageJson }) {
  const [open, setOpen] = useState(false);
  const text = message.text ?? '';
  const long = text.length > ASSISTANT_PREVIEW_CHARS;
  const shown = long && !open ? `${text.slice(0, ASSISTANT_PREVIEW_CHARS).trimEnd()}…` : text;
  return (
    <div
      className="flex flex-col gap-1.5 rounded border border-line border-l-4 border-l-violet-400 bg-muted/40 px-3 py-2 text-sm dark:border-l-violet-500"
      data-testid="assistant-message"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-fg-muted">
        <Bot size={13} aria-hidden className="text-violet-600 dark:text-violet-300" />
        <span>What the model said with this request's tool calls</span>
        {message.model && (
          <code className="rounded border border-line px-1 font-mono text-[11px] text-fg" data-testid="assistant-model">
            {message.model}
          </code>
        )}
        {message.truncated && (
          <span className="text-amber-700 dark:text-amber-300" title="Toolscope keeps the first 16 KiB of the text">
            (cut at 16 KiB)
          </span>
        )}
      </div>
      {text === '' ? (
        <p className="text-xs italic text-fg-muted">No text, only the model name.</p>
      ) : (
        <p className="whitespace-pre-wrap break-words leading-relaxed" data-testid="assistant-text">
          <MarkedText text={shown} />
        </p>
      )}
      {long && (
        <button
          type="button"
          onClick={() => setOpen((value) => !value)}
          aria-expanded={open}
          className="inline-flex w-fit items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
          data-testid="assistant-toggle"
        >
          {open ? <ChevronUp size={12} aria-hidden /> : <ChevronDown size={12} aria-hidden />}
          {open ? 'Show less' : `Show all (${text.length.toLocaleString('en')} characters)`}
        </button>
      )}
    </div>
  );
}
