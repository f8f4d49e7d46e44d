import { Zap } from 'lucide-react';
import Link from 'next/link';
import type { Attempt } from '@/lib/executor/types';
import { faultRuleHref } from '@/lib/ui/fault-kinds';
import { FAULT_TONE } from './attempt-fault-badge';

interface Source {
  ruleId: string | null;
  name: string;
  kinds: Set<string>;
  attempts: number[];
}

/** The faults of a call grouped by the rule that fired them, in order of first attempt. */
export function faultSources(attempts: readonly Attempt[]): Source[] {
  const byRule = new Map<string, Source>();
  for (const attempt of attempts) {
    const fault = attempt.fault;
    if (!fault) continue;
    const key = fault.ruleId ?? '';
    const source = byRule.get(key) ?? {
      ruleId: fault.ruleId,
      name: fault.ruleId === null ? 'a one-off fault' : (fault.ruleName ?? fault.ruleId),
      kinds: new Set<string>(),
      attempts: [],
    };
    source.kinds.add(fault.kind);
    source.attempts.push(attempt.number);
    byRule.set(key, source);
  }
  return [...byRule.values()];
}

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
              <span className="font-mono font-normal">({[...source.kinds].join(', ')})</span> in attempt
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
