import { GitBranch, Repeat, RotateCcw, Scissors, Zap } from 'lucide-react';
import type { TraceFlags as Flags } from '@/lib/executor/types';
import { Tag } from '../status';

/** Badges for what happened on the way: retried, fell back, truncated, fault-injected, replayed. */
export function TraceFlags({ flags }: { flags: Flags }) {
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
        <Tag tone="info" title="A fault was injected into an attempt">
          <Zap size={10} aria-hidden />
          fault
        </Tag>
      )}
      {flags.replayed && (
        <Tag tone="info" title="A replay of an earlier call">
          <RotateCcw size={10} aria-hidden />
          replay
        </Tag>
      )}
    </span>
  );
}
