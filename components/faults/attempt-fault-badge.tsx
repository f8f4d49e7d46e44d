import { Zap } from 'lucide-react';
import Link from 'next/link';
import type { AttemptFault } from '@/lib/executor/types';
import { attemptFaultSummary, faultRuleHref } from '@/lib/ui/fault-kinds';

/** The colours of everything that says "injected, not real". */
export const FAULT_TONE =
  'border-fuchsia-300 bg-fuchsia-50 text-fuchsia-800 dark:border-fuchsia-800 dark:bg-fuchsia-950/50 dark:text-fuchsia-300';

/**
 * The fault injected into one attempt: a badge with its kind and what it did (`fail_first 1/2`,
 * `latency 130 ms`), and the rule that fired it, linking to the rule on the Faults page.
 */
export function AttemptFaultBadge({ fault, attempt }: { fault: AttemptFault; attempt: number }) {
  const summary = attemptFaultSummary(fault, attempt);
  const rule = fault.ruleId === null ? null : (fault.ruleName ?? fault.ruleId);
  const badge = (
    <span
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1 text-[11px] leading-4 ${FAULT_TONE}`}
      data-testid="attempt-fault"
      data-kind={fault.kind}
      data-rule-id={fault.ruleId ?? ''}
    >
      <Zap size={10} aria-hidden />
      <span className="font-medium">fault</span>
      <span className="font-mono">{summary}</span>
    </span>
  );
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap">
      {badge}
      {fault.ruleId !== null ? (
        <Link
          href={faultRuleHref(fault.ruleId)}
          className="text-[11px] text-fuchsia-800 underline decoration-dotted underline-offset-2 hover:decoration-solid dark:text-fuchsia-300"
          title={`The fault rule that fired (${fault.ruleId})`}
          data-testid="attempt-fault-rule"
        >
          rule {rule}
        </Link>
      ) : (
        <span className="text-[11px] text-fg-muted" title="Given with this call only (replay with fault)">
          one-off
        </span>
      )}
    </span>
  );
}
