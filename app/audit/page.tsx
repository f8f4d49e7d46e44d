import type { Metadata } from 'next';
import { NotAllowed } from '@/components/access/not-allowed';
import { AuditView } from '@/components/audit/audit-view';
import { AUDIT_KINDS } from '@/lib/access/audit-trail';
import { reachOf } from '@/lib/access/roles';
import { getToolscope } from '@/lib/server/toolscope';
import { AUDIT_PAGE_SIZE, auditFiltersOf } from '@/lib/ui/audit-api';
import { currentPrincipal } from '../_lib/principal';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Audit' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The audit trail, newest first: the first page for the filters in the address bar
 * (`?kind=&principal=&target=`, so `/audit?target=<traceId>` lists what was done to one call)
 * rendered here from the trail as the API reads it, then kept and paged in the browser.
 */
export default async function AuditPage({ searchParams }: Props) {
  const principal = await currentPrincipal();
  if (!principal || !reachOf(principal.role, 'audit.read')) {
    return (
      <NotAllowed title="The audit trail is for viewers, reviewers and admins" testId="audit-forbidden">
        You are logged in as <strong className="text-fg">{principal?.name ?? 'nobody'}</strong> (
        {principal?.role ?? 'no role'}).
      </NotAllowed>
    );
  }
  const filters = auditFiltersOf(await searchParams, AUDIT_KINDS);
  const page = getToolscope().access.audit.list({
    kind: filters.kind || undefined,
    principal: filters.principal || undefined,
    target: filters.target || undefined,
    limit: AUDIT_PAGE_SIZE,
  });
  return <AuditView initial={page} initialFilters={filters} kinds={AUDIT_KINDS} renderedAt={Date.now()} />;
}
