import { Lock } from 'lucide-react';
import { memo } from 'react';
import { containsRedacted, fieldIssuesOf } from '@/lib/ui/json-issues';
import type { TraceView } from '@/lib/ui/trace-from-json';
import { JsonTree } from './json-tree';

/**
 * The call's redacted arguments (as a tree, or as received when they were not JSON), and any
 * approver edit. Memoized: a running call's view re-renders on every timer tick.
 */
export const TraceArguments = memo(function TraceArguments({ trace }: { trace: TraceView }) {
  const issues = trace.error?.code === 'INVALID_ARGUMENTS' ? fieldIssuesOf(trace.error.details) : [];
  const editedArguments = trace.editedArguments;
  return (
    <div className="rounded border border-line p-3" data-testid="arguments">
      {containsRedacted(trace.arguments) && (
        <p className="mb-2 flex items-center gap-1 text-xs text-fg-muted">
          <Lock size={11} aria-hidden /> Secrets were redacted before storage; they are never shown.
        </p>
      )}
      {typeof trace.arguments === 'string' ? (
        <>
          <p className="mb-1 text-xs text-fg-muted">The arguments were not valid JSON; as received:</p>
          <pre className="whitespace-pre-wrap break-all font-mono text-[12px]">{trace.arguments}</pre>
        </>
      ) : (
        <JsonTree value={trace.arguments} issues={issues} label="Arguments" testId="arguments-tree" />
      )}
      {editedArguments !== null && editedArguments !== undefined && (
        <div className="mt-3 border-t border-line pt-2">
          <p className="mb-1 text-xs text-fg-muted">Arguments as edited by the approver (what ran):</p>
          <JsonTree value={editedArguments} label="Edited arguments" testId="edited-arguments-tree" />
        </div>
      )}
    </div>
  );
});
