'use client';

import { useState } from 'react';
import { CopyButton } from '../copy-button';

/** The tool definition exactly as sent to models, in OpenAI and Anthropic forms. */
export function SchemaTabs({ openai, anthropic }: { openai: unknown; anthropic: unknown }) {
  const [format, setFormat] = useState<'openai' | 'anthropic'>('openai');
  const text = JSON.stringify(format === 'openai' ? openai : anthropic, null, 2);
  const tab =
    'rounded px-2 py-0.5 text-xs text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:font-medium aria-pressed:text-fg';
  return (
    <div className="rounded border border-line" data-testid="schema-tabs">
      <fieldset className="flex items-center gap-1 border-b border-line bg-subtle px-2 py-1">
        <legend className="sr-only">Definition format</legend>
        <button
          type="button"
          className={tab}
          aria-pressed={format === 'openai'}
          onClick={() => setFormat('openai')}
          data-testid="schema-openai"
        >
          OpenAI
        </button>
        <button
          type="button"
          className={tab}
          aria-pressed={format === 'anthropic'}
          onClick={() => setFormat('anthropic')}
          data-testid="schema-anthropic"
        >
          Anthropic
        </button>
        <span className="ml-auto">
          <CopyButton text={text} label="Copy definition" />
        </span>
      </fieldset>
      <pre
        className="max-h-[28rem] overflow-auto whitespace-pre-wrap p-3 font-mono text-[12px] leading-5 [overflow-wrap:anywhere]"
        data-testid="schema-json"
      >
        {text}
      </pre>
    </div>
  );
}
