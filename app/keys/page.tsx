import type { Metadata } from 'next';
import { NotAllowed } from '@/components/access/not-allowed';
import { KeysView } from '@/components/keys/keys-view';
import { keyJson } from '@/lib/access/key-json';
import { reachOf } from '@/lib/access/roles';
import { getToolscope } from '@/lib/server/toolscope';
import { currentPrincipal } from '../_lib/principal';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Keys' };

/**
 * The keys (`GET /api/v1/keys`'s list, read here as the API does), then kept live in the browser.
 * Admins only: any other role gets a sentence saying so, as the API would refuse its every read.
 */
export default async function KeysPage() {
  const principal = await currentPrincipal();
  if (!principal || !reachOf(principal.role, 'keys.manage')) {
    return (
      <NotAllowed title="Only admins manage keys" testId="keys-forbidden">
        You are logged in as <strong className="text-fg">{principal?.name ?? 'nobody'}</strong> (
        {principal?.role ?? 'no role'}). Ask an admin to make, scope or revoke keys.
      </NotAllowed>
    );
  }
  const keys = getToolscope().access.keys.list().map(keyJson);
  return <KeysView initial={keys} renderedAt={Date.now()} />;
}
