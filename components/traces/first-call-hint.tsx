import Link from 'next/link';
import { curlCommand, FIRST_CALL_BODY } from '@/lib/ui/agent-request';
import { CopyButton } from '../copy-button';

/** The empty state of a fresh install: how to send a first call, and where to try a tool instead. */
export function FirstCallHint({ origin }: { origin: string }) {
  const command = curlCommand(origin, FIRST_CALL_BODY);
  return (
    <div className="flex flex-col gap-3 p-6" data-testid="traces-empty">
      <div>
        <h2 className="text-sm font-semibold">No tool calls recorded yet</h2>
        <p className="text-fg-muted">
          Send your agent’s tool calls to Toolscope’s API (OpenAI <code className="font-mono">tool_calls</code> format)
          and they appear here live.
        </p>
      </div>
      <div className="overflow-hidden rounded border border-line">
        {/* The copy button sits in its own bar, so it never covers the command on a narrow screen. */}
        <div className="flex items-center justify-between gap-2 border-b border-line bg-subtle px-2 py-1 text-xs text-fg-muted">
          <span>Try one from a terminal:</span>
          <CopyButton text={command} label="Copy command" testId="copy-first-call" />
        </div>
        <pre className="whitespace-pre-wrap break-all p-3 font-mono text-[12px] leading-5">{command}</pre>
      </div>
      <p className="text-fg-muted">
        Or pick a tool in the{' '}
        <Link href="/tools" className="text-accent hover:underline">
          tools catalog
        </Link>{' '}
        and run it from its playground.
      </p>
    </div>
  );
}
