import 'server-only';
import { headers } from 'next/headers';
import { credentialsOf } from '@/lib/access/authenticator';
import type { Principal } from '@/lib/access/principal';
import { type Action, forbiddenMessage, reachOf } from '@/lib/access/roles';
import { getToolscope } from '@/lib/server/toolscope';

/**
 * The principal of the request a page or a server action serves, from its login (the same
 * resolver the HTTP layer asks); null when it has none (the login page).
 */
export async function currentPrincipal(): Promise<Principal | null> {
  const auth = getToolscope().access.authenticate(credentialsOf(await headers()));
  return auth.ok ? auth.principal : null;
}

/**
 * What a server action does first: the principal, if it may do `action` (the ACTIONS table the
 * HTTP layer's role check reads), else the sentence saying why not.
 */
export async function principalFor(
  action: Action,
): Promise<{ ok: true; principal: Principal } | { ok: false; message: string }> {
  const principal = await currentPrincipal();
  if (!principal) return { ok: false, message: 'Log in first.' };
  if (!reachOf(principal.role, action)) return { ok: false, message: forbiddenMessage(principal.role, action) };
  return { ok: true, principal };
}
