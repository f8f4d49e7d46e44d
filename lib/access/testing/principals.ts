import type { CallPrincipal } from '../../executor/types';

/** A principal for tests that decide approvals or make calls directly, without the HTTP layer. */
export function testPrincipal(name = 'tester', role = 'reviewer'): CallPrincipal {
  return { id: `key_${name}`, name, role };
}

/** Local mode's one person, as the HTTP layer names it on a loopback server without keys. */
export const LOCAL: CallPrincipal = { id: 'local', name: 'local', role: 'admin' };
