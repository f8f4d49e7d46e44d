'use client';

import { NavLink } from '../nav-link';
import { useApprovalQueue } from './approvals-live';

/** "Approvals" in the navigation, with the number of calls waiting (live, on every page). */
export function ApprovalsNavLink() {
  const { data } = useApprovalQueue();
  const count = data?.approvals.length ?? 0;
  return (
    <NavLink href="/approvals">
      <span className="inline-flex items-center gap-1">
        Approvals
        {count > 0 && (
          <span
            className="min-w-4 rounded-full bg-amber-500 px-1 text-center text-[11px] font-semibold leading-4 tabular-nums text-black"
            data-testid="approvals-badge"
            data-count={count}
          >
            {count > 99 ? '99+' : count}
            <span className="sr-only"> pending</span>
          </span>
        )}
      </span>
    </NavLink>
  );
}
