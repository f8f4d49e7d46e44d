import type { Role } from '@/lib/access/roles';

/** One colour per role, least to most power: grey, blue, violet, amber. */
const ROLE_LOOK: Record<Role | 'none', string> = {
  agent: 'border-line text-fg-muted',
  viewer: 'border-sky-300 bg-sky-50 text-sky-800 dark:border-sky-800 dark:bg-sky-950/40 dark:text-sky-300',
  reviewer:
    'border-violet-300 bg-violet-50 text-violet-800 dark:border-violet-800 dark:bg-violet-950/40 dark:text-violet-300',
  admin: 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-300',
  none: 'border-dashed border-line text-fg-muted',
};

/** What each role may do, for the badge's title. */
export const ROLE_HELP: Record<Role | 'none', string> = {
  agent: 'agent: runs tool calls and reads its own calls; cannot log in to the pages',
  viewer: 'viewer: reads everything, changes nothing',
  reviewer: 'reviewer: a viewer who also decides approvals, replays and cancels',
  admin: 'admin: everything, keys, policy and faults included',
  none: 'not a key: a failed login or Toolscope itself',
};

/** A principal's role as a small badge (the audit trail's `none` for who was nobody yet). */
export function RoleBadge({ role }: { role: Role | 'none' }) {
  return (
    <span
      className={`inline-flex whitespace-nowrap rounded border px-1 text-[11px] leading-4 ${ROLE_LOOK[role] ?? ROLE_LOOK.none}`}
      title={ROLE_HELP[role]}
      data-testid="role-badge"
      data-role={role}
    >
      {role}
    </span>
  );
}
