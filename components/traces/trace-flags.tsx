import { CassetteTape, FileInput, GitBranch, Repeat, RotateCcw, Scissors, Zap } from 'lucide-react';
import type { TraceFlags as Flags } from '@/lib/executor/types';
import { FAULT_TONE } from '../faults/attempt-fault-badge';
import { Tag } from '../status';

/**
 * Badges for what happened on the way: retried, fell back, truncated, fault-injected (in the
 * colour of injected faults, never to be taken for a real failure), replayed, and served from a
 * recording (`servedFrom`: nothing ran).
 */
export function TraceFlags({
  flags,
  servedFrom = null,
  imported = false,
}: {
  flags: Flags;
  servedFrom?: string | null;
  /** The call came from an imported file: a record of another Toolscope's call, read-only here. */
  imported?: boolean;
}) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      {flags.retried && (
        <Tag tone="warn" title="At least one attempt failed and was retried">
          <Repeat size={10} aria-hidden />
          retried
        </Tag>
      )}
      {flags.fellBack && (
        <Tag tone="warn" title="A fallback tool ran after the primary failed">
          <GitBranch size={10} aria-hidden />
          fell back
        </Tag>
      )}
      {flags.truncated && (
        <Tag title="The output was cut before it reached the model">
          <Scissors size={10} aria-hidden />
          truncated
        </Tag>
      )}
      {flags.faulted && (
        <span
          className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1 text-[11px] font-medium leading-4 ${FAULT_TONE}`}
          title="A fault rule (or a one-off fault) was injected into an attempt: failures and delays it caused are not the tool's"
          data-testid="flag-faulted"
        >
          <Zap size={10} aria-hidden />
          fault-injected
        </span>
      )}
      {flags.replayed && (
        <Tag tone="info" title="A replay of an earlier call">
          <RotateCcw size={10} aria-hidden />
          replay
        </Tag>
      )}
      {imported && (
        <span className="inline-flex" data-testid="flag-imported">
          <Tag tone="info" title="Imported from an export file: a record of a call made elsewhere, read-only here">
            <FileInput size={10} aria-hidden />
            imported
          </Tag>
        </span>
      )}
      {servedFrom && (
        <Tag tone="info" title={`Served from the recording of ${servedFrom}: the tool did not run`}>
          <CassetteTape size={10} aria-hidden />
          recorded
        </Tag>
      )}
    </span>
  );
}
