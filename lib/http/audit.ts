import type { AuditEntry, AuditKind } from '../access/audit-trail';
import type { Toolscope } from '../server/create-toolscope';
import { clientAddress } from './client-address';
import type { HttpContext } from './env';

/**
 * Appends an audit entry for what the request's principal just did, from the request's address.
 * The action has happened: an entry that cannot be written (a locked or full disk) is logged,
 * never turned into a failure of the action.
 */
export function audit(
  c: HttpContext,
  ts: Pick<Toolscope, 'access'>,
  kind: AuditKind,
  target: string | null,
  detail: Record<string, unknown> = {},
): AuditEntry | null {
  try {
    return ts.access.audit.append({ principal: c.get('principal'), kind, target, detail, address: clientAddress(c) });
  } catch (error) {
    console.error(`[toolscope] could not write the audit entry (${kind} ${target ?? ''}):`, error);
    return null;
  }
}
