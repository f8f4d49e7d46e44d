import type { Role } from './roles';

/**
 * Who a request acts as: resolved from its key (a bearer token or a login's session cookie), or,
 * on a loopback server without any key, the one local person. Recorded on every call and every
 * audit entry; nothing a client says of itself (an `actor`, a name) replaces it.
 */
export interface Principal {
  /** A key's id (`key_…`); `token` for TOOLSCOPE_TOKEN's bootstrap admin; `local` in local mode. */
  id: string;
  name: string;
  role: Role;
  kind: 'key' | 'token' | 'local';
  /** Its row in `access_keys`: what a call's trace points at. */
  ref: number;
}

/** What a trace, an approval or an audit entry says of a principal. */
export interface PrincipalRef {
  id: string;
  name: string;
  /** `none` for who is not yet anyone (a failed login). */
  role: Role | 'none';
}

export function principalRef(principal: Principal): PrincipalRef {
  return { id: principal.id, name: principal.name, role: principal.role };
}
