'use client';

import { Zap } from 'lucide-react';
import Link from 'next/link';
import type { FaultRulesJson } from '@/lib/ui/faults';
import { NavLink } from '../nav-link';
import { useFaultRules } from './use-fault-rules';

/**
 * "Faults" in the navigation, on every page. While any rule is active it carries a warning badge
 * with their count: a debugger that silently breaks tools is a trap. `initial` is the server's
 * snapshot at `renderedAt`, so the badge is there at first paint, never late.
 */
export function FaultsNavLink({ initial, renderedAt }: { initial?: FaultRulesJson; renderedAt?: number }) {
  const { data } = useFaultRules({ initial, renderedAt });
  const count = data?.active ?? 0;
  return (
    <NavLink href="/faults">
      <span className="inline-flex items-center gap-1" data-testid="faults-nav">
        Faults
        {count > 0 && (
          <span
            className="inline-flex items-center gap-0.5 rounded-full bg-orange-600 px-1.5 text-[11px] font-semibold leading-4 tabular-nums text-white dark:bg-orange-500 dark:text-black"
            title={`${count} fault ${count === 1 ? 'rule is' : 'rules are'} active: matching tool calls are being broken on purpose`}
            data-testid="faults-badge"
            data-count={count}
          >
            <Zap size={10} aria-hidden />
            {count > 99 ? '99+' : count}
            <span className="sr-only"> active fault {count === 1 ? 'rule' : 'rules'}</span>
          </span>
        )}
      </span>
    </NavLink>
  );
}

/**
 * On a phone the navigation's sections scroll sideways and "Faults" may be out of sight: while
 * any rule is active this pill stays in the header's fixed corner instead (hidden on wider screens).
 */
export function FaultsPhoneIndicator({ initial, renderedAt }: { initial?: FaultRulesJson; renderedAt?: number }) {
  const { data } = useFaultRules({ initial, renderedAt });
  const count = data?.active ?? 0;
  if (count === 0) return null;
  return (
    <Link
      href="/faults"
      className="inline-flex items-center gap-0.5 rounded-full bg-orange-600 px-1.5 py-0.5 text-[11px] font-semibold tabular-nums text-white sm:hidden dark:bg-orange-500 dark:text-black"
      aria-label={`${count} active fault ${count === 1 ? 'rule' : 'rules'}`}
      data-testid="faults-phone-badge"
    >
      <Zap size={11} aria-hidden />
      {count > 99 ? '99+' : count}
    </Link>
  );
}
