'use client';

import { useEffect, useRef } from 'react';

function Stream({ name, text }: { name: 'stdout' | 'stderr'; text: string | null }) {
  const ref = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  // Keep the newest output in view unless the reader scrolled up to read.
  useEffect(() => {
    const element = ref.current;
    if (element && follow.current && text) element.scrollTop = element.scrollHeight;
  }, [text]);
  return (
    <div className="flex min-w-0 flex-col">
      <div className="flex items-center justify-between border-b border-line bg-subtle px-2 py-1 text-xs">
        <span className="font-medium">{name}</span>
        <span className="tabular-nums text-fg-muted">
          {text ? `${new TextEncoder().encode(text).length} B` : 'empty'}
        </span>
      </div>
      <pre
        ref={ref}
        onScroll={(event) => {
          const el = event.currentTarget;
          follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
        }}
        className="h-32 overflow-auto md:h-48 whitespace-pre-wrap break-all p-2 font-mono text-[12px]"
        data-testid={`live-${name}`}
      >
        {text || <span className="italic text-fg-muted">Nothing yet.</span>}
      </pre>
    </div>
  );
}

/**
 * stdout and stderr of a call still running, as the tool produces them (bounded by the executor to
 * the trace's caps). Replaced by the result tabs once the call ends.
 */
export function LiveOutput({ stdout, stderr }: { stdout: string | null; stderr: string | null }) {
  return (
    <div className="grid divide-line rounded border border-line md:grid-cols-2 md:divide-x" data-testid="live-output">
      <Stream name="stdout" text={stdout} />
      <Stream name="stderr" text={stderr} />
    </div>
  );
}
