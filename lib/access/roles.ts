/** The roles a key carries, least to most: what each may do is the ACTIONS table. */
export const ROLES = ['agent', 'viewer', 'reviewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** How much of a resource a role may act on: all of it, or only what its own key made (its calls). */
export type Reach = 'all' | 'own';

const READERS = { viewer: 'all', reviewer: 'all', admin: 'all' } as const;
const REVIEWERS = { reviewer: 'all', admin: 'all' } as const;
const ADMINS = { admin: 'all' } as const;

/**
 * Every action a request can ask for, who may, and how it is named in a 403. The one table the
 * HTTP layer's role check, the pages, the server actions and `/mcp` read (and the role-matrix tests
 * are generated from):
 * - `agent`: run tool calls, list tools, read its own calls (traces, events, approvals);
 * - `viewer`: read everything, change nothing;
 * - `reviewer`: a viewer who also decides approvals, replays, cancels and resets circuit breakers;
 * - `admin`: everything, policy, faults, keys, import, delete and MCP reconnects included.
 */
export const ACTIONS = {
  'tools.list': { may: { agent: 'all', ...READERS }, says: 'list the tools' },
  'calls.run': { may: { agent: 'all', ...ADMINS }, says: 'run tool calls' },
  'calls.read': { may: { agent: 'own', ...READERS }, says: 'read calls' },
  'calls.cancel': { may: REVIEWERS, says: 'cancel calls' },
  'calls.replay': { may: REVIEWERS, says: 'replay calls' },
  'circuits.reset': { may: REVIEWERS, says: 'reset circuit breakers' },
  'calls.delete': { may: ADMINS, says: 'delete calls' },
  'calls.import': { may: ADMINS, says: 'import calls' },
  'sessions.read': { may: READERS, says: 'read sessions' },
  'approvals.read': { may: { agent: 'own', ...READERS }, says: 'read the approvals queue' },
  'approvals.decide': { may: REVIEWERS, says: 'decide approvals' },
  'stats.read': { may: READERS, says: 'read the statistics' },
  'policy.read': { may: READERS, says: 'read the permission rules' },
  'policy.write': { may: ADMINS, says: 'change the permission rules' },
  'faults.read': { may: READERS, says: 'read the fault rules' },
  'faults.write': { may: ADMINS, says: 'change the fault rules' },
  'mcp.servers.read': { may: READERS, says: 'read the MCP servers' },
  'mcp.servers.reconnect': { may: ADMINS, says: 'reconnect MCP servers' },
  'keys.manage': { may: ADMINS, says: 'manage keys' },
  'audit.read': { may: READERS, says: 'read the audit trail' },
  'pages.read': { may: READERS, says: 'use the pages' },
} as const satisfies Record<string, { may: Partial<Record<Role, Reach>>; says: string }>;

export type Action = keyof typeof ACTIONS;

/** How far `role` may do `action`: `all`, `own` (its own calls only), or null when it may not. */
export function reachOf(role: Role, action: Action): Reach | null {
  const may: Partial<Record<Role, Reach>> = ACTIONS[action].may;
  return may[role] ?? null;
}

/** The 403's message: which role may not do what. */
export function forbiddenMessage(role: Role, action: Action): string {
  return `The role ${role} may not ${ACTIONS[action].says} (${action}).`;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
