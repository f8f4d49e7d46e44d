import { Zap } from 'lucide-react';
import Link from 'next/link';
import type { Attempt } from '@/lib/executor/types';
import { faultRuleHref, faultSources } from '@/lib/ui/fault-kinds';
import { FAULT_TONE } from './attempt-fault-badge';

/**
 * The unmistakable notice on a fault-injected call: which rule(s) injected what into which
 * attempts, and that what went wrong there is not the tool's doing. Nothing when no fault was injected.
 */
export function FaultBanner({ attempts }: { attempts: readonly Attempt[] }) {
  const sources = faultSources(attempts);
  if (sources.length === 0) return null;
  return (
    <div
      className={`flex items-start gap-2 rounded border-2 px-2.5 py-1.5 text-[12px] ${FAULT_TONE}`}
      role="note"
      data-testid="fault-banner"
    >
      <Zap size={14} className="mt-0.5 shrink-0" aria-hidden />
      <div className="flex flex-col gap-0.5">
        <p className="font-semibold">
          Fault injected by{' '}
          {sources.map((source, i) => (
            <span key={source.ruleId ?? 'one-off'}>
              {i > 0 && (i === sources.length - 1 ? ' and ' : ', ')}
              {source.ruleId === null ? (
                source.name
              ) : (
                <>
                  rule{' '}
                  <Link
                    href={faultRuleHref(source.ruleId)}
                    className="underline decoration-dotted underline-offset-2 hover:decoration-solid"
                    data-testid="fault-banner-rule"
                  >
                    {source.name}
                  </Link>
                </>
              )}{' '}
              <span className="font-mono font-normal">({source.kinds.join(', ')})</span> in attempt
              {source.attempts.length === 1 ? '' : 's'} {source.attempts.join(', ')}
            </span>
          ))}
          .
        </p>
        <p>Failures and delays it caused in this call are not the tool's.</p>
      </div>
    </div>
  );
}
