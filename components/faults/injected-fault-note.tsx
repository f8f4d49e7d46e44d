import { Zap } from 'lucide-react';
import Link from 'next/link';
import { faultRuleHref } from '@/lib/ui/fault-kinds';
import { FAULT_TONE } from './attempt-fault-badge';

/** `details.injectedFault` of an error an injected fault caused (see `markInjected` in the executor). */
function injectedFault(details: Record<string, unknown> | undefined) {
  const fault = details?.injectedFault;
  if (!fault || typeof fault !== 'object') return null;
  const { ruleId, ruleName, kind } = fault as Record<string, unknown>;
  return {
    ruleId: typeof ruleId === 'string' ? ruleId : null,
    ruleName: typeof ruleName === 'string' ? ruleName : null,
    kind: typeof kind === 'string' ? kind : 'fault',
  };
}

/**
 * Under an error an injected fault caused: who injected it, and that the tool did not fail.
 * Nothing for a real error.
 */
export function InjectedFaultNote({ details }: { details: Record<string, unknown> | undefined }) {
  const fault = injectedFault(details);
  if (!fault) return null;
  return (
    <p
      className={`mb-2 flex flex-wrap items-center gap-1 rounded border px-2 py-1 text-[12px] ${FAULT_TONE}`}
      data-testid="error-injected"
    >
      <Zap size={12} aria-hidden />
      <strong>Injected</strong> by{' '}
      {fault.ruleId ? (
        <Link href={faultRuleHref(fault.ruleId)} className="underline decoration-dotted underline-offset-2">
          fault rule {fault.ruleName ?? fault.ruleId}
        </Link>
      ) : (
        'a one-off fault given with this call'
      )}{' '}
      <span className="font-mono">({fault.kind})</span> — this failure is not the tool's.
    </p>
  );
}
