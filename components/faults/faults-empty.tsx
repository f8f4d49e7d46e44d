import { Plus, Zap } from 'lucide-react';

const EXAMPLE = `curl -X POST $TOOLSCOPE/api/v1/faults \\
  -H 'content-type: application/json' \\
  -d '{"name":"flaky http","tool":"http_*","kind":"fail_first","params":{"n":2}}'`;

/** No rule yet: what faults are for, the button (and key) to make one, and the API for test suites. */
export function FaultsEmpty({ onCreate }: { onCreate: () => void }) {
  return (
    <div
      className="flex flex-col gap-2 rounded border border-dashed border-line px-3 py-3 text-[12px]"
      data-testid="faults-empty"
    >
      <p className="flex items-center gap-1.5 font-medium">
        <Zap size={14} className="text-fuchsia-600 dark:text-fuchsia-400" aria-hidden />
        No fault rules yet. Every tool runs as it is.
      </p>
      <p className="text-fg-muted">
        Make a tool slow (<code className="font-mono">latency</code>), hang (<code className="font-mono">timeout</code>
        ), fail (<code className="font-mono">error</code>, <code className="font-mono">exit_code</code>), fail its first
        attempts (<code className="font-mono">fail_first</code>), answer 429 (
        <code className="font-mono">rate_limit</code>) or return garbage (
        <code className="font-mono">corrupt_output</code>) — then watch the retries, fallbacks and your agent cope.
      </p>
      <div>
        <button
          type="button"
          onClick={onCreate}
          className="inline-flex items-center gap-1 rounded border border-accent bg-accent px-2 py-0.5 font-medium text-white hover:opacity-90 dark:text-bg"
          data-testid="faults-empty-new"
        >
          <Plus size={13} aria-hidden />
          New rule <kbd className="ml-1 rounded border border-white/50 px-1 font-mono text-[11px]">n</kbd>
        </button>
      </div>
      <p className="text-fg-muted">An agent's test suite can drive chaos runs through the API:</p>
      <pre className="overflow-x-auto rounded bg-subtle px-2 py-1 font-mono text-[11px] leading-snug">{EXAMPLE}</pre>
    </div>
  );
}
